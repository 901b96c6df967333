// The interface's DTOs as ServiceStack's "Add ServiceStack Reference" would generate them for its
// TypeScript client (JsonServiceClient), which sends what they hold.
import type { IReturn } from '@servicestack/client';

export class UserDetailsResponse {
  userName?: string;
  hxUserTypeCode?: number;
  siteId?: string;
  providerPaymentSettings?: Record<string, { isInBackist: boolean }>;
}
export class SupportStateUserLoginRequest implements IReturn<UserDetailsResponse> {
  constructor(init?: Partial<SupportStateUserLoginRequest>) { Object.assign(this, init); }
  userName?: string;
  searchValues?: string;
  getTypeName() { return 'SupportStateUserLoginRequest'; }
  getMethod() { return 'POST'; }
  createResponse() { return new UserDetailsResponse(); }
}
export class ConfirmEmailResponse { userName?: string; firstName?: string; lastName?: string; }
export class ConfirmEmailRequest implements IReturn<ConfirmEmailResponse> {
  constructor(init?: Partial<ConfirmEmailRequest>) { Object.assign(this, init); }
  recoveryToken?: string;
  verifyEmail?: string;
  ownerId?: number | string;
  isForMM?: boolean;
  getTypeName() { return 'ConfirmEmailRequest'; }
  getMethod() { return 'POST'; }
  createResponse() { return new ConfirmEmailResponse(); }
}
