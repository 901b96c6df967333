#!/usr/bin/env python3
"""Independent implementation of the "Account Login and User Details Service".

Written only from interface.md (normative) and servicestack-notes.md (platform
behaviour).  Python 3.11 standard library only.

Usage:
    python3 server.py --port N [--style pretty|dotnet|cdata] [--fault NAME] [--verbose]

Prints:
    listening on http://127.0.0.1:N
    request-namespace=<uri> login-namespace=<uri>
"""

import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

# ---------------------------------------------------------------------------
# Namespaces
# ---------------------------------------------------------------------------

DEFAULT_REQUEST_NS = "http://example.org/independent/useraccount/requests"
DEFAULT_LOGIN_NS = "http://example.org/independent/useraccount/login"
WRONG_NS = "http://example.org/independent/useraccount/not-the-login-namespace"

SOAP_ENV_NS = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12_ENV_NS = "http://www.w3.org/2003/05/soap-envelope"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
ARRAYS_NS = "http://schemas.microsoft.com/2003/10/Serialization/Arrays"
SYSTEM_NS = "http://schemas.datacontract.org/2004/07/System"

REQUEST_NS = os.environ.get("SERVICE_REQUEST_NAMESPACE") or DEFAULT_REQUEST_NS
LOGIN_NS = os.environ.get("SERVICE_LOGIN_NAMESPACE") or DEFAULT_LOGIN_NS

STYLES = ("pretty", "dotnet", "cdata")
FAULTS = (
    "json-datetime-millis",
    "soap-order",
    "json-guid-dashes",
    "soap-nil-settings-missing",
    "jsonp-ignored",
    "soap-namespace",
    "json-int-string",
    "options-405",
    "soap-bool-caps",
    "reply-route-missing",
)

# ---------------------------------------------------------------------------
# Data (made up).  Declaration order = order used by the "dotnet" JSON style.
# Datetimes are (seconds-precision part, 7 fractional digits).
# ---------------------------------------------------------------------------


def dt(base, frac="0000000"):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", base) and re.fullmatch(r"\d{7}", frac)
    return (base, frac)


USER_FIELDS = [
    # strings
    ("userName", "str", "mrodriguez.support"),
    ("email", "str", "maria.rodriguez@example.org"),
    ("primaryEmail", "str", "m.rodriguez@example.net"),
    ("phoneNumber", "str", "+1 (505) 555-0147"),
    ("firstName", "str", "María José"),
    ("lastName", "str", "Rodríguez-Østergaard"),
    ("displayName", "str", "María R."),
    ("company", "str", "Sunny Days Child Care & Learning <North>"),
    ("birthDateRaw", "str", "07/14/1986"),
    ("address", "str", "1200 Calle del Río, Suite #4"),
    ("address2", "str", ""),
    ("city", "str", "Española"),
    ("state", "str", "NM"),
    ("country", "str", "US"),
    ("culture", "str", "es-US"),
    ("fullName", "str", "María José Rodríguez-Østergaard"),
    ("businessName", "str", "Días Felices Daycare LLC"),
    ("gender", "str", "F"),
    ("language", "str", "es"),
    ("mailAddress", "str", "PO Box 88, Española, NM 87532"),
    ("nickname", "str", "Mari \U0001F33B"),
    ("postalCode", "str", "87532"),
    ("timeZone", "str", "Mountain Standard Time"),
    ("basicAuthHeader", "str", "Basic ZXhhbXBsZTpleGFtcGxl"),
    ("centerName", "str", "Sunny Days \u2013 Española Center"),
    ("impersonatedName", "str", None),
    ("releaseMessage", "str", None),
    ("billAndPayStatus", "str", "Active"),
    ("favoriteLoginType", "str", "Password"),
    ("preferableParentProviderId", "str", "PRV-000417"),
    ("searchValues", "str", "rodriguez; 87532 & \"north\""),
    ("legalName", "str", "Días Felices Daycare, L.L.C."),
    ("notificationEmail", "str", "alerts+center417@example.org"),
    ("environment", "str", "Staging"),
    ("hxToken", "str", "hx-example-token-7f3a9c"),
    ("planCode", "str", "STD&PAY<2>"),
    ("apiKey", "str", "ak_example_00000000000000000000"),
    ("jToken", "str", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJleGFtcGxlIn0."),
    # integers
    ("ownerId", "int", 417),
    ("userId", "int", 90321),
    ("centerId", "int", 5512),
    ("observerUserId", "int", 0),
    ("enrollExpirationMonthNumber", "int", 9),
    ("tierCode", "int", 2),
    ("hxUserTypeCode", "int", 3),
    ("securityGroupNumber", "int", 12),
    ("preferableParentCenterId", "int", 5513),
    ("apiKeyStatus", "int", 1),
    ("currentClaimMonthNumber", "int", 6),
    ("currentClaimYear", "int", 2024),
    # datetimes
    ("expires", "dt", dt("2024-06-18T17:45:09", "4817263")),
    ("birthDate", "dt", dt("1986-07-14T00:00:00")),
    ("createdDate", "dt", dt("2015-02-03T09:12:44", "1030000")),
    ("modifiedDate", "dt", dt("2024-06-17T22:05:31", "9999999")),
    ("mealPatternDate", "dt", dt("2017-10-01T00:00:00")),
    ("currentClaimMonth", "dt", dt("2024-06-01T00:00:00")),
    ("currentClaimMonthForCenter", "dt", dt("2024-05-01T00:00:00")),
    ("removalFromSystemDate", "dt", dt("0001-01-01T00:00:00")),
    ("initAccountingRolloutDate", "dt", dt("2020-01-15T08:00:00")),
    ("paymentProcessorJoinDate", "dt", dt("2021-11-30T13:27:05", "5000000")),
    ("milkRuleEffectiveDate", "dt", dt("2019-10-01T00:00:00")),
    # guid
    ("siteId", "guid", "9b2f6c1e-4a7d-4e3b-8c51-0d2e7f9a13b6"),
    # booleans
    ("isFirstTimeLogin", "bool", False),
    ("requirePasswordChange", "bool", False),
    ("supportObserverExit", "bool", True),
    ("parentIsPayer", "bool", False),
    ("parentHasPermissionInitiatePayment", "bool", True),
    ("hasMoreThanOneActiveProvider", "bool", True),
    ("isAccountingActive", "bool", True),
    ("showICPriceChangeWellMessage", "bool", False),
    ("hadPinCode", "bool", True),
    ("isTemporaryPin", "bool", False),
    ("isEulaAgreed", "bool", True),
    ("subjectedToProviderSecurity", "bool", False),
    ("hasMoreThanOneArasSfspCenter", "bool", False),
    ("hasSfspCenterNoErroll", "bool", False),
    ("hasAnySfspCenterAndStateLA", "bool", False),
    ("hasRegularLicense", "bool", True),
    ("isSfspCenterAndStateLA", "bool", False),
    ("hasAnyCenterAndStateLA", "bool", False),
    ("hasAnyCenterAndStateSpecific", "bool", True),
    ("isSfspCenterNonLA", "bool", False),
    ("isOpenEnrollCenterNonLA", "bool", True),
    ("isOpenEnrollCenter", "bool", True),
    ("isARASHybrid", "bool", False),
    ("isSFSPHybrid", "bool", True),
    ("isCxSchool", "bool", False),
    ("isSponsorUseStateRate", "bool", True),
    ("isMilkRuleEffective", "bool", True),
    ("isParachute", "bool", False),
    ("isInBlacklist", "bool", False),
    ("hasApiKey", "bool", True),
    ("isOnlyParachute", "bool", False),
    ("isSiteReadMessageBlackList", "bool", False),
    ("isParachuteAttendance", "bool", True),
    ("isKioskAttendance", "bool", True),
    ("isStaffAttendance", "bool", False),
    ("isFederatedSsoUser", "bool", False),
    ("isAffiliatedSsoUser", "bool", True),
    # arrays
    ("roles", "strlist", ["CenterAdmin", "Support", "Billing & Claims"]),
    ("permissions", "strlist", ["ViewClaims", "EditRoster", "SubmitClaims", "ManageUsers"]),
    ("possibleLoginTypes", "strlist", ["Password", "Pin", "Sso"]),
    ("availableYearsFor1099K", "intlist", [2021, 2022, 2023]),
    # enums
    ("mealPatternVersionCode", "enum", "Unspecified"),
    ("originalUserTypeCode", "enum", "Center"),
    ("parentContactType", "enum", "Unknown"),
    # objects
    ("associatedIds", "assoc", [
        {"system": "Unspecified", "systemId": "Unknown", "ownerId": 417,
         "internalId": "EXT-00417-A", "metaData": "{\"source\":\"kiosk\",\"v\":2}"},
        {"system": "Unspecified", "systemId": "Unknown", "ownerId": 418,
         "internalId": "Ä-418", "metaData": None},
    ]),
    ("enrollmentInfo", "enroll", {
        "systemCodeId": 7, "systemCode": "Unspecified", "ownerId": 417,
        "siteId": "c0ffee00-1234-4abc-9def-00112233aabb"}),
    ("nonCongregateSettings", "noncong", {
        "clientId": 3301, "centerId": 5512, "allowMealServedFlag": True,
        "allowMondayFlag": True, "allowTuesdayFlag": True, "allowWednesdayFlag": True,
        "allowThursdayFlag": True, "allowFridayFlag": True, "allowSaturdayFlag": False,
        "allowSundayFlag": True, "mealDays": ["Sunday", "Monday", "Wednesday"]}),
    ("providerPaymentSettings", "pps", {
        "5512": {"providerAllowInitiatePayment": True, "providerAllowParaPay": False,
                 "parentHasPermissionInitiatePayment": True, "isInBackist": False},
        "5513": {"providerAllowInitiatePayment": False, "providerAllowParaPay": False,
                 "parentHasPermissionInitiatePayment": False, "isInBackist": True},
        "ext:Ana & Bo <main>": {"providerAllowInitiatePayment": True, "providerAllowParaPay": True,
                                "parentHasPermissionInitiatePayment": False, "isInBackist": False},
    }),
]

ASSOC_FIELDS = [("system", "enum"), ("systemId", "enum"), ("ownerId", "int"),
                ("internalId", "str"), ("metaData", "str")]
ENROLL_FIELDS = [("systemCodeId", "int"), ("systemCode", "enum"), ("ownerId", "int"), ("siteId", "guid")]
NONCONG_FIELDS = [("clientId", "int"), ("centerId", "int"), ("allowMealServedFlag", "bool"),
                  ("allowMondayFlag", "bool"), ("allowTuesdayFlag", "bool"),
                  ("allowWednesdayFlag", "bool"), ("allowThursdayFlag", "bool"),
                  ("allowFridayFlag", "bool"), ("allowSaturdayFlag", "bool"),
                  ("allowSundayFlag", "bool"), ("mealDays", "daylist")]
PPS_FIELDS = [("providerAllowInitiatePayment", "bool"), ("providerAllowParaPay", "bool"),
              ("parentHasPermissionInitiatePayment", "bool"), ("isInBackist", "bool")]

CONFIRM_FIELDS = [
    ("userName", "str", "mrodriguez.support"),
    ("firstName", "str", "María José"),
    ("lastName", "str", "Rodríguez-Østergaard & <Co>"),
]

# DataContractSerializer-style element name for the dictionary entries (made up hash).
KV_ELEMENT = "KeyValueOfstringProviderPaymentSettingsq7Xm2bZk"

# ---------------------------------------------------------------------------
# JSON form
# ---------------------------------------------------------------------------


def json_guid(g, style, dashes=False):
    if dashes:
        s = g
    else:
        s = g.replace("-", "")
    return s.upper() if style == "pretty" else s.lower()


def json_value(kind, value, style):
    if kind == "dt":
        return "%s.%s" % value
    if kind == "guid":
        return json_guid(value, style)
    return value


def json_object(fields, src, style):
    out = {}
    for name, kind in fields:
        v = src[name]
        if v is None:
            continue  # nulls omitted (IncludeNullValues = false)
        if kind == "daylist":
            out[name] = list(v)
        else:
            out[name] = json_value(kind, v, style)
    return out


def json_user_record(style, fault):
    d = {}
    for name, kind, value in USER_FIELDS:
        if kind == "str":
            if value is None:
                continue
            d[name] = value
        elif kind in ("int", "bool", "enum"):
            d[name] = value
        elif kind == "dt":
            d[name] = json_value(kind, value, style)
        elif kind == "guid":
            d[name] = json_guid(value, style)
        elif kind in ("strlist", "intlist"):
            d[name] = list(value)
        elif kind == "assoc":
            d[name] = [json_object(ASSOC_FIELDS, a, style) for a in value]
        elif kind == "enroll":
            d[name] = json_object(ENROLL_FIELDS, value, style)
        elif kind == "noncong":
            d[name] = json_object(NONCONG_FIELDS, value, style)
        elif kind == "pps":
            d[name] = {k: json_object(PPS_FIELDS, v, style) for k, v in value.items()}
        else:
            raise AssertionError(kind)
    # --- JSON faults (each breaks exactly one rule) ---
    if fault == "json-datetime-millis":
        base, frac = dict((n, v) for n, k, v in USER_FIELDS)["createdDate"]
        d["createdDate"] = "%s.%s" % (base, frac[:3])
    elif fault == "json-guid-dashes":
        d["enrollmentInfo"]["siteId"] = json_guid(
            dict((n, v) for n, k, v in USER_FIELDS)["enrollmentInfo"]["siteId"], style, dashes=True)
    elif fault == "json-int-string":
        d["currentClaimYear"] = str(d["currentClaimYear"])
    return d


def json_confirm_record(style):
    return {name: value for name, kind, value in CONFIRM_FIELDS if value is not None}


def reorder_reversed(obj):
    if isinstance(obj, dict):
        return {k: reorder_reversed(obj[k]) for k in reversed(list(obj.keys()))}
    if isinstance(obj, list):
        return [reorder_reversed(x) for x in obj]
    return obj


def dump_json(obj, style):
    if style == "pretty":
        return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, separators=(",", ": "))
    if style == "dotnet":
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    # cdata style: reversed key order, everything non-ASCII and <, >, & as \u escapes
    s = json.dumps(reorder_reversed(obj), ensure_ascii=True, separators=(",", ":"))
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------------------
# XML tree (DataContractSerializer shape) and writers
# ---------------------------------------------------------------------------


class N:
    """XML node: complex (children list), leaf (text), or nil."""
    __slots__ = ("ns", "name", "children", "text", "nil", "is_string", "record")

    def __init__(self, ns, name, children=None, text=None, nil=False, is_string=False, record=False):
        self.ns, self.name, self.children, self.text = ns, name, children, text
        self.nil, self.is_string, self.record = nil, is_string, record


def pascal(name):
    if name == "hxUserTypeCode":
        return "HXUserTypeCode"
    return name[0].upper() + name[1:]


def ordinal_sorted(nodes):
    # Python str comparison is by code point; member names are ASCII, so this
    # equals .NET String.CompareOrdinal (UTF-16 code units).
    return sorted(nodes, key=lambda n: n.name)


def xml_scalar(ns, name, kind, value, style, fault_bool_caps=False):
    if kind == "str":
        if value is None:
            return None if style == "pretty" else N(ns, name, nil=True)
        return N(ns, name, text=value, is_string=True)
    if kind == "int":
        return N(ns, name, text=str(value))
    if kind == "bool":
        if fault_bool_caps:
            return N(ns, name, text="True" if value else "False")
        return N(ns, name, text="true" if value else "false")
    if kind == "dt":
        return N(ns, name, text=value[0])
    if kind == "guid":
        return N(ns, name, text=value.lower())
    if kind == "enum":
        return N(ns, name, text=value)
    raise AssertionError(kind)


def xml_contract(ns, name, fields, src, style, extra=None):
    kids = []
    for fname, kind in fields:
        ename = pascal(fname)
        if kind == "daylist":
            kids.append(N(ns, ename, children=[N(SYSTEM_NS, "DayOfWeek", text=d) for d in src[fname]]))
            continue
        node = xml_scalar(ns, ename, kind, src[fname], style)
        if node is not None:
            kids.append(node)
    return N(ns, name, children=ordinal_sorted(kids))


def xml_user_record(style, fault, soap):
    ns = WRONG_NS if (soap and fault == "soap-namespace") else LOGIN_NS
    kids = []
    for name, kind, value in USER_FIELDS:
        ename = pascal(name)
        if kind in ("str", "int", "bool", "dt", "guid", "enum"):
            caps = soap and fault == "soap-bool-caps" and name == "isEulaAgreed"
            node = xml_scalar(ns, ename, kind, value, style, fault_bool_caps=caps)
            if node is not None:
                kids.append(node)
        elif kind == "strlist":
            kids.append(N(ns, ename, children=[N(ARRAYS_NS, "string", text=v, is_string=True) for v in value]))
        elif kind == "intlist":
            kids.append(N(ns, ename, children=[N(ARRAYS_NS, "int", text=str(v)) for v in value]))
        elif kind == "assoc":
            kids.append(N(ns, ename, children=[
                xml_contract(ns, "SystemAssociation", ASSOC_FIELDS, a, style) for a in value]))
        elif kind == "enroll":
            c = xml_contract(ns, ename, ENROLL_FIELDS, value, style)
            kids.append(c)
        elif kind == "noncong":
            kids.append(xml_contract(ns, ename, NONCONG_FIELDS, value, style))
        elif kind == "pps":
            entries = []
            for k, v in value.items():
                val = xml_contract(ns, "Value", PPS_FIELDS, v, style)
                val.ns = ARRAYS_NS  # the Value element itself is in the Arrays namespace
                entries.append(N(ARRAYS_NS, KV_ELEMENT, children=[
                    N(ARRAYS_NS, "Key", text=k, is_string=True), val]))
            kids.append(N(ns, ename, children=entries))
        else:
            raise AssertionError(kind)
    # Settings: SOAP-only member, array of strings, nil in the response.
    if not (soap and fault == "soap-nil-settings-missing"):
        kids.append(N(ns, "Settings", nil=True))
    kids = ordinal_sorted(kids)
    if soap and fault == "soap-order":
        names = [k.name for k in kids]
        i, j = names.index("HXUserTypeCode"), names.index("HadPinCode")
        kids[i], kids[j] = kids[j], kids[i]
    return N(ns, "UserDetailsResponse", children=kids, record=True)


def xml_confirm_record(style):
    kids = []
    for name, kind, value in CONFIRM_FIELDS:
        node = xml_scalar(LOGIN_NS, pascal(name), kind, value, style)
        if node is not None:
            kids.append(node)
    return N(LOGIN_NS, "ConfirmEmailResponse", children=ordinal_sorted(kids), record=True)


def soap_envelope(record, style):
    body = N(SOAP_ENV_NS, "Body", children=[record])
    kids = [body]
    if style == "pretty":
        kids.insert(0, N(SOAP_ENV_NS, "Header", children=[]))
    return N(SOAP_ENV_NS, "Envelope", children=kids)


def esc_text(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "&#13;"))


def esc_attr(s):
    return esc_text(s).replace('"', "&quot;")


def cdata_text(s):
    """All string content as CDATA; non-ASCII as numeric character references."""
    if s == "":
        return "<![CDATA[]]>"
    out = []
    run = []

    def flush():
        if run:
            txt = "".join(run).replace("]]>", "]]]]><![CDATA[>")
            out.append("<![CDATA[" + txt + "]]>")
            run.clear()

    for ch in s:
        if ord(ch) > 0x7E or (ord(ch) < 0x20 and ch not in "\t\n"):
            flush()
            out.append("&#x%X;" % ord(ch))
        else:
            run.append(ch)
    flush()
    return "".join(out)


def all_namespaces(node, acc):
    if node.ns not in acc:
        acc.append(node.ns)
    if node.nil and XSI_NS not in acc:
        acc.append(XSI_NS)
    for c in node.children or []:
        all_namespaces(c, acc)
    return acc


PRETTY_PREFIXES = {SOAP_ENV_NS: "soap", XSI_NS: "xsi", ARRAYS_NS: "arr", SYSTEM_NS: "sys"}


class XmlWriter:
    def __init__(self, style):
        self.style = style
        self.out = []

    # declarations to place on `node`, given the scope in force
    def declarations(self, node, scope, depth, is_root):
        st = self.style
        decls = []
        if st == "pretty":
            if is_root:
                used = all_namespaces(node, [])
                n = 0
                taken = set()
                for uri in used:
                    if uri in PRETTY_PREFIXES:
                        p = PRETTY_PREFIXES[uri]
                    elif uri in (LOGIN_NS, WRONG_NS) and "u" not in taken:
                        p = "u"
                    else:
                        n += 1
                        p = "ns%d" % n
                    taken.add(p)
                    decls.append((p, uri))
        elif st == "dotnet":
            if node.record:
                decls.append(("", node.ns))
                decls.append(("i", XSI_NS))
            elif node.ns == SOAP_ENV_NS and is_root:
                decls.append(("s", SOAP_ENV_NS))
            if node.children:
                known = dict(scope["prefixes"])
                default = scope["default"]
                for p, u in decls:
                    if p == "":
                        default = u
                    else:
                        known[u] = p
                k = 0
                for c in node.children:
                    if c.record:
                        continue  # a record declares its own default namespace
                    if c.ns != default and c.ns not in known:
                        k += 1
                        p = "d%dp%d" % (depth + 1, k)
                        known[c.ns] = p
                        decls.append((p, c.ns))
        elif st == "cdata":
            if is_root and node.ns == SOAP_ENV_NS:
                decls.append(("SOAP-ENV", SOAP_ENV_NS))
            if node.record:
                decls.append(("", node.ns))
                decls.append(("xsi", XSI_NS))
                letters = iter("abcdefgh")
                for uri in all_namespaces(node, []):
                    if uri not in (node.ns, XSI_NS):
                        decls.append((next(letters), uri))
        return decls

    def write(self, node, scope, depth, level, is_root=False):
        st = self.style
        if node.record:
            depth = 0  # .NET-like d{n}p{k} prefixes count depth from the record
        decls = self.declarations(node, scope, depth, is_root)
        scope = {"default": scope["default"], "prefixes": dict(scope["prefixes"])}
        for p, u in decls:
            if p == "":
                scope["default"] = u
            else:
                scope["prefixes"][u] = p
        # resolve own name (auto-declare as a safety net)
        if node.ns == scope["default"]:
            qname = node.name
        elif node.ns in scope["prefixes"]:
            qname = scope["prefixes"][node.ns] + ":" + node.name
        else:
            p = "x%d" % depth
            decls.append((p, node.ns))
            scope["prefixes"][node.ns] = p
            qname = p + ":" + node.name
        attrs = []
        for p, u in decls:
            attrs.append(('xmlns' if p == "" else "xmlns:" + p, u))
        if node.nil:
            if XSI_NS not in scope["prefixes"]:
                decls.append(("xsi", XSI_NS))
                scope["prefixes"][XSI_NS] = "xsi"
                attrs.append(("xmlns:xsi", XSI_NS))
            attrs.insert(0, (scope["prefixes"][XSI_NS] + ":nil", "true"))
        attr_s = "".join(' %s="%s"' % (k, esc_attr(v)) for k, v in attrs)
        ind = ("  " * level) if st == "pretty" else ""
        nl = "\n" if st == "pretty" else ""
        o = self.out
        if node.nil:
            o.append("%s<%s%s/>%s" % (ind, qname, attr_s, nl))
        elif node.children is None:  # leaf
            if node.text == "" and st != "cdata":
                o.append("%s<%s%s/>%s" % (ind, qname, attr_s, nl))
            else:
                if st == "cdata" and node.is_string:
                    txt = cdata_text(node.text)
                else:
                    txt = esc_text(node.text)
                o.append("%s<%s%s>%s</%s>%s" % (ind, qname, attr_s, txt, qname, nl))
        elif not node.children:
            o.append("%s<%s%s/>%s" % (ind, qname, attr_s, nl))
        else:
            o.append("%s<%s%s>%s" % (ind, qname, attr_s, nl))
            if st == "cdata" and node.name == "Body" and node.ns == SOAP_ENV_NS:
                o.append("<!-- response body -->")
            for i, c in enumerate(node.children):
                if st == "cdata" and node.record and i == len(node.children) // 2:
                    o.append("<!-- members continue -->")
                self.write(c, scope, depth + 1, level + 1)
            o.append("%s</%s>%s" % (ind, qname, nl))

    def render(self, root, soap):
        st = self.style
        head = ""
        if st == "pretty":
            head = '<?xml version="1.0" encoding="UTF-8"?>\n'
        elif st == "dotnet":
            head = "" if soap else '<?xml version="1.0" encoding="utf-8"?>'
        elif st == "cdata":
            head = '\ufeff<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<!-- independent implementation -->\n'
        self.out = [head]
        self.write(root, {"default": None, "prefixes": {}}, 0, 0, is_root=True)
        return "".join(self.out).encode("utf-8")


def render_xml(record, style, soap):
    root = soap_envelope(record, style) if soap else record
    w = XmlWriter(style)
    return w.render(root, soap)


def soap_fault_xml(code, message):
    return ('<?xml version="1.0" encoding="utf-8"?>'
            '<soap:Envelope xmlns:soap="%s"><soap:Body><soap:Fault>'
            '<faultcode>soap:%s</faultcode><faultstring>%s</faultstring>'
            '</soap:Fault></soap:Body></soap:Envelope>' % (SOAP_ENV_NS, code, esc_text(message))).encode("utf-8")


# ---------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------

CORS_HEADERS = [
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, PATCH, OPTIONS, HEAD"),
    ("Access-Control-Allow-Headers", "Content-Type"),
]

ROUTES = {
    "/supportstateuser": ("login", False),
    "/json/reply/supportstateuserloginrequest": ("login", True),
    "/user/confirmemail": ("confirm", False),
    "/json/reply/confirmemailrequest": ("confirm", True),
    "/soap11": ("soap", False),
}

CONFIG = {"style": "pretty", "fault": None, "verbose": False}


def sanitize_callback(name):
    return re.sub(r"[^A-Za-z0-9._]", "_", name)


def negotiate(accept):
    """Return 'json' or 'xml' from an Accept header (default json)."""
    if not accept:
        return "json"
    best, best_q = "json", -1.0
    for part in accept.split(","):
        bits = [b.strip() for b in part.split(";")]
        mt = bits[0].lower()
        q = 1.0
        for b in bits[1:]:
            if b.lower().startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        kind = None
        if mt in ("application/json", "text/json"):
            kind = "json"
        elif mt in ("application/xml", "text/xml"):
            kind = "xml"
        elif mt in ("*/*", "application/*"):
            kind = "json"
        if kind and q > best_q and q > 0:
            best, best_q = kind, q
    return best


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "IndependentUserService/1.0"

    def log_message(self, fmt, *args):
        if CONFIG["verbose"]:
            sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))

    # ---- plumbing ----
    def read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            data = b""
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def send(self, status, body=b"", ctype=None, extra=()):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in CORS_HEADERS:
            self.send_header(k, v)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def not_found(self):
        self.send(404, ("Handler for Request not found (404):\n  Request.HttpMethod: %s\n  Request.PathInfo: %s\n"
                        % (self.command, urlsplit(self.path).path)).encode("utf-8"),
                  "text/plain; charset=utf-8")

    def json_error(self, status, code, message):
        body = json.dumps({"responseStatus": {"errorCode": code, "message": message, "errors": []}},
                          separators=(",", ":")).encode("utf-8")
        self.send(status, body, "application/json; charset=utf-8")

    def do_GET(self): self.dispatch()
    def do_POST(self): self.dispatch()
    def do_PUT(self): self.dispatch()
    def do_DELETE(self): self.dispatch()
    def do_PATCH(self): self.dispatch()
    def do_HEAD(self): self.dispatch()
    def do_OPTIONS(self): self.dispatch()

    # ---- routing ----
    def dispatch(self):
        style, fault = CONFIG["style"], CONFIG["fault"]
        try:
            body = self.read_body()
        except Exception:
            self.close_connection = True
            self.send(400, b"bad request body", "text/plain; charset=utf-8")
            return
        parts = urlsplit(self.path)
        path = unquote(parts.path).lower()
        query = parse_qs(parts.query, keep_blank_values=True)
        fmt = None
        for ext in (".json", ".soap11", ".xml"):
            if path.endswith(ext):
                fmt = ext[1:]
                path = path[: -len(ext)]
                break
        if len(path) > 1:
            path = path.rstrip("/")
        qfmt = (query.get("format") or [""])[0].strip().lower()
        if qfmt in ("json", "soap11", "xml"):
            fmt = qfmt  # unknown formats fall back to content negotiation
        callback = sanitize_callback((query.get("callback") or [""])[0])

        route = ROUTES.get(path)
        if route is None:
            if self.command == "OPTIONS":  # CorsFeature answers every OPTIONS request
                self.send(200)
                return
            self.not_found()
            return
        op, is_reply = route
        if fault == "reply-route-missing" and op == "login" and is_reply:
            self.not_found()
            return
        if self.command == "OPTIONS":
            if fault == "options-405" and op == "login" and not is_reply:
                self.send(405, b"Method Not Allowed", "text/plain; charset=utf-8",
                          extra=[("Allow", "POST")])
                return
            self.send(200)
            return
        if self.command != "POST":
            self.send(405, ("Method %s not allowed on %s\n" % (self.command, parts.path)).encode("utf-8"),
                      "text/plain; charset=utf-8", extra=[("Allow", "POST, OPTIONS")])
            return

        if op == "soap":
            self.handle_soap(body, style, fault)
            return

        # JSON-variant operations: parse the request body
        ctype = (self.headers.get("Content-Type") or "").lower()
        if body.strip() and ("json" in ctype or ctype == "" or "javascript" in ctype):
            try:
                req = json.loads(body.decode("utf-8-sig"))
            except (ValueError, UnicodeDecodeError) as e:
                self.json_error(400, "SerializationException", "Could not deserialize request body: %s" % e)
                return
            if not isinstance(req, dict):
                self.json_error(400, "SerializationException", "Request body must be a JSON object")
                return

        # format selection
        if is_reply or fmt == "json":
            out = "json"
        elif fmt in ("soap11", "xml"):
            out = fmt
        elif callback:
            out = "json"
        else:
            out = negotiate(self.headers.get("Accept"))

        if out == "json":
            rec = json_user_record(style, fault) if op == "login" else json_confirm_record(style)
            text = dump_json(rec, style)
            if callback and fault != "jsonp-ignored":
                jsct = "application/javascript; charset=utf-8" if style == "pretty" else "text/javascript; charset=utf-8"
                self.send(200, ("%s(%s)" % (callback, text)).encode("utf-8"), jsct)
            else:
                self.send(200, text.encode("utf-8"), "application/json; charset=utf-8")
            return
        soap = out == "soap11"
        rec = xml_user_record(style, fault, soap) if op == "login" else xml_confirm_record(style)
        self.send(200, render_xml(rec, style, soap), self.xml_ctype(style))

    @staticmethod
    def xml_ctype(style):
        return "application/xml" if style == "dotnet" else "application/xml; charset=utf-8"

    def soap_fault(self, code, message):
        self.send(500, soap_fault_xml(code, message), "text/xml; charset=utf-8")

    def handle_soap(self, body, style, fault):
        try:
            root = ET.fromstring(body)
        except ET.ParseError as e:
            self.soap_fault("Client", "Malformed SOAP request: %s" % e)
            return
        if root.tag == "{%s}Envelope" % SOAP12_ENV_NS:
            self.soap_fault("VersionMismatch", "Only SOAP 1.1 is served at /soap11")
            return
        if root.tag != "{%s}Envelope" % SOAP_ENV_NS:
            self.soap_fault("VersionMismatch", "Expected a SOAP 1.1 Envelope, got %s" % root.tag)
            return
        bodies = [c for c in root if c.tag == "{%s}Body" % SOAP_ENV_NS]
        if len(bodies) != 1 or len(bodies[0]) == 0:
            self.soap_fault("Client", "SOAP Body with one request element expected")
            return
        op = bodies[0][0]
        m = re.fullmatch(r"\{(.*)\}(.*)", op.tag)
        ns, local = (m.group(1), m.group(2)) if m else ("", op.tag)
        if local != "ImpersonateLogoutRequest":
            action = (self.headers.get("SOAPAction") or "").strip().strip('"')
            self.soap_fault("Client", "Unknown operation '%s' (SOAPAction '%s')" % (local, action))
            return
        if ns != REQUEST_NS:
            self.soap_fault("Client", "Expecting element 'ImpersonateLogoutRequest' from namespace '%s'. "
                                      "Encountered element with name 'ImpersonateLogoutRequest', namespace '%s'."
                            % (REQUEST_NS, ns))
            return
        rec = xml_user_record(style, fault, soap=True)
        self.send(200, render_xml(rec, style, soap=True), self.xml_ctype(style))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--style", choices=STYLES, default="pretty")
    ap.add_argument("--fault", choices=FAULTS, default=None)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    CONFIG.update(style=a.style, fault=a.fault, verbose=a.verbose)
    srv = Server(("127.0.0.1", a.port), Handler)
    port = srv.server_address[1]
    sys.stdout.write("listening on http://127.0.0.1:%d\n" % port)
    sys.stdout.write("request-namespace=%s login-namespace=%s\n" % (REQUEST_NS, LOGIN_NS))
    sys.stdout.flush()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()


if __name__ == "__main__":
    main()
