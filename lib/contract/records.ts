// The records of interface.md section 2, once. Each line is one field as the spec lists it;
// order within a shape follows the spec's text (SOAP order is derived, never written here).
import {
  BOOLEAN, DATETIME, GUID, INTEGER, STRING,
  arrayOf, enumClosed, enumSeen, field, mapOf, objectOf, shape,
} from './types.js';

const credential = { sensitivity: 'credential' } as const;
const personal = { sensitivity: 'personal' } as const;

const arraysItem = (name: string) => ({ name, ns: 'arrays' } as const);

/** System.DayOfWeek: the one enum whose full set is known. */
export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** 2.1 Association object (element SystemAssociation in SOAP). */
export const SystemAssociation = shape('SystemAssociation', [
  field('system', enumSeen('Unspecified')),
  field('systemId', enumSeen('Unknown')),
  field('ownerId', INTEGER),
  field('internalId', STRING),
  field('metaData', STRING),
]);

/** 2.1 enrollmentInfo. */
export const EnrollmentInfo = shape('EnrollmentInfo', [
  field('systemCodeId', INTEGER),
  field('systemCode', enumSeen('Unspecified')),
  field('ownerId', INTEGER),
  field('siteId', GUID),
]);

/** 2.1 nonCongregateSettings. */
export const NonCongregateSettings = shape('NonCongregateSettings', [
  field('clientId', INTEGER),
  field('centerId', INTEGER),
  field('allowMealServedFlag', BOOLEAN),
  field('allowMondayFlag', BOOLEAN),
  field('allowTuesdayFlag', BOOLEAN),
  field('allowWednesdayFlag', BOOLEAN),
  field('allowThursdayFlag', BOOLEAN),
  field('allowFridayFlag', BOOLEAN),
  field('allowSaturdayFlag', BOOLEAN),
  field('allowSundayFlag', BOOLEAN),
  field('mealDays', arrayOf(enumClosed(...DAY_NAMES), { name: 'DayOfWeek', ns: 'system' })),
]);

/** 2.1 Provider payment settings object (the value of each providerPaymentSettings entry). */
export const ProviderPaymentSettings = shape('ProviderPaymentSettings', [
  field('providerAllowInitiatePayment', BOOLEAN),
  field('providerAllowParaPay', BOOLEAN),
  field('parentHasPermissionInitiatePayment', BOOLEAN),
  field('isInBackist', BOOLEAN), // sic: the spec's name, as written
]);

/** 2.1 User-details record; SOAP element UserDetailsResponse. */
export const UserDetails = shape('UserDetailsResponse', [
  // String fields
  field('userName', STRING, personal),
  field('email', STRING, personal),
  field('primaryEmail', STRING, personal),
  field('phoneNumber', STRING, personal),
  field('firstName', STRING, personal),
  field('lastName', STRING, personal),
  field('displayName', STRING, personal),
  field('company', STRING),
  field('birthDateRaw', STRING, personal),
  field('address', STRING, personal),
  field('address2', STRING, personal),
  field('city', STRING, personal),
  field('state', STRING),
  field('country', STRING),
  field('culture', STRING),
  field('fullName', STRING, personal),
  field('businessName', STRING),
  field('gender', STRING, personal),
  field('language', STRING),
  field('mailAddress', STRING, personal),
  field('nickname', STRING, personal),
  field('postalCode', STRING, personal),
  field('timeZone', STRING),
  field('basicAuthHeader', STRING, credential),
  field('centerName', STRING),
  field('impersonatedName', STRING, personal),
  field('releaseMessage', STRING),
  field('billAndPayStatus', STRING),
  field('favoriteLoginType', STRING),
  field('preferableParentProviderId', STRING),
  field('searchValues', STRING, personal),
  field('legalName', STRING, personal),
  field('notificationEmail', STRING, personal),
  field('environment', STRING),
  field('hxToken', STRING, credential),
  field('planCode', STRING),
  field('apiKey', STRING, credential),
  field('jToken', STRING, credential),
  // Integer fields
  field('ownerId', INTEGER),
  field('userId', INTEGER),
  field('centerId', INTEGER),
  field('observerUserId', INTEGER),
  field('enrollExpirationMonthNumber', INTEGER),
  field('tierCode', INTEGER),
  field('hxUserTypeCode', INTEGER, { soap: 'HXUserTypeCode' }), // the spec's one naming exception
  field('securityGroupNumber', INTEGER),
  field('preferableParentCenterId', INTEGER),
  field('apiKeyStatus', INTEGER),
  field('currentClaimMonthNumber', INTEGER),
  field('currentClaimYear', INTEGER),
  // Datetime fields
  field('expires', DATETIME),
  field('birthDate', DATETIME, personal),
  field('createdDate', DATETIME),
  field('modifiedDate', DATETIME),
  field('mealPatternDate', DATETIME),
  field('currentClaimMonth', DATETIME),
  field('currentClaimMonthForCenter', DATETIME),
  field('removalFromSystemDate', DATETIME),
  field('initAccountingRolloutDate', DATETIME),
  field('paymentProcessorJoinDate', DATETIME),
  field('milkRuleEffectiveDate', DATETIME),
  // Guid field
  field('siteId', GUID),
  // Boolean fields
  field('isFirstTimeLogin', BOOLEAN),
  field('requirePasswordChange', BOOLEAN),
  field('supportObserverExit', BOOLEAN),
  field('parentIsPayer', BOOLEAN),
  field('parentHasPermissionInitiatePayment', BOOLEAN),
  field('hasMoreThanOneActiveProvider', BOOLEAN),
  field('isAccountingActive', BOOLEAN),
  field('showICPriceChangeWellMessage', BOOLEAN),
  field('hadPinCode', BOOLEAN),
  field('isTemporaryPin', BOOLEAN),
  field('isEulaAgreed', BOOLEAN),
  field('subjectedToProviderSecurity', BOOLEAN),
  field('hasMoreThanOneArasSfspCenter', BOOLEAN),
  field('hasSfspCenterNoErroll', BOOLEAN),
  field('hasAnySfspCenterAndStateLA', BOOLEAN),
  field('hasRegularLicense', BOOLEAN),
  field('isSfspCenterAndStateLA', BOOLEAN),
  field('hasAnyCenterAndStateLA', BOOLEAN),
  field('hasAnyCenterAndStateSpecific', BOOLEAN),
  field('isSfspCenterNonLA', BOOLEAN),
  field('isOpenEnrollCenterNonLA', BOOLEAN),
  field('isOpenEnrollCenter', BOOLEAN),
  field('isARASHybrid', BOOLEAN),
  field('isSFSPHybrid', BOOLEAN),
  field('isCxSchool', BOOLEAN),
  field('isSponsorUseStateRate', BOOLEAN),
  field('isMilkRuleEffective', BOOLEAN),
  field('isParachute', BOOLEAN),
  field('isInBlacklist', BOOLEAN),
  field('hasApiKey', BOOLEAN),
  field('isOnlyParachute', BOOLEAN),
  field('isSiteReadMessageBlackList', BOOLEAN),
  field('isParachuteAttendance', BOOLEAN),
  field('isKioskAttendance', BOOLEAN),
  field('isStaffAttendance', BOOLEAN),
  field('isFederatedSsoUser', BOOLEAN),
  field('isAffiliatedSsoUser', BOOLEAN),
  // Array fields
  field('roles', arrayOf(STRING, arraysItem('string'))),
  field('permissions', arrayOf(STRING, arraysItem('string'))),
  field('possibleLoginTypes', arrayOf(STRING, arraysItem('string'))),
  field('availableYearsFor1099K', arrayOf(INTEGER, arraysItem('int'))),
  // Enumerated string fields
  field('mealPatternVersionCode', enumSeen('Unspecified')),
  field('originalUserTypeCode', enumSeen('Center')),
  field('parentContactType', enumSeen('Unknown')),
  // Object fields
  field('associatedIds', arrayOf(objectOf(SystemAssociation), { name: 'SystemAssociation', ns: 'login' })),
  field('enrollmentInfo', objectOf(EnrollmentInfo)),
  field('nonCongregateSettings', objectOf(NonCongregateSettings)),
  // The entry element's name ends in a digest of the value's namespace, computed per deployment by
  // mapEntryName() (data-contract.ts); the suffix once written here (bYn_SOvr1) was not .NET's.
  field('providerPaymentSettings', mapOf(ProviderPaymentSettings, arraysItem('KeyValueOfstringProviderPaymentSettings'))),
  field('settings', arrayOf(STRING, arraysItem('string')), { only: 'soap' }), // SOAP only, always nil
]);

/** 2.2 Request records. */
export const SupportStateUserLoginRequest = shape('SupportStateUserLoginRequest', [
  field('userName', STRING, personal),
  field('searchValues', STRING, personal),
]);

export const ImpersonateLogoutRequest = shape('ImpersonateLogoutRequest', []);

export const ConfirmEmailRequest = shape('ConfirmEmailRequest', [
  field('recoveryToken', STRING, credential),
  field('verifyEmail', STRING, personal),
  field('childId', STRING),
  field('systemCode', enumSeen('Unspecified')),
  field('ownerId', INTEGER),
  field('dataForMM', STRING),
  field('isForMM', BOOLEAN),
]);

/** 2.3 Confirmation record. */
export const Confirmation = shape('ConfirmEmailResponse', [
  field('userName', STRING, personal),
  field('firstName', STRING, personal),
  field('lastName', STRING, personal),
]);
