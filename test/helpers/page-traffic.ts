// What a web page sends the service, driven in headless Chromium and recorded as a HAR by Chromium
// itself (playwright-core's recordHar): a recorder nobody here wrote.
import { DEFAULT_NAMESPACES } from '../../lib/contract/namespaces.js';
import { soapRequestBody } from '../../lib/engine/probes.js';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.js';

/** The traffic a web page sends the service: both JSON operations in their route forms and selectors, JSONP, OPTIONS, SOAP.
 *  In `shared`, a browser the caller launched and closes (one launch for several recordings), else in one of its own. */
export async function recordPageTraffic(baseUrl: string, path: string, token: string, shared?: Browser): Promise<string> {
  const browser = shared ?? await launchChromium();
  try {
    const context = await browser.newContext({ recordHar: { path, content: 'embed' } });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/`); // same origin: no CORS between the page and the service
    await page.evaluate(async ({ token, soap }) => {
      const json = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const login = JSON.stringify({ userName: 'jdoe.support' });
      for (const url of ['/supportstateuser', '/json/reply/SupportStateUserLoginRequest', '/supportstateuser.json', '/supportstateuser?format=json', '/supportstateuser?callback=cb']) {
        await (await fetch(url, { method: 'POST', headers: json, body: login })).text();
      }
      await (await fetch('/user/confirmemail', { method: 'POST', headers: json, body: JSON.stringify({ recoveryToken: 'r', ownerId: 7 }) })).text();
      await (await fetch('/supportstateuser', { method: 'OPTIONS' })).text();
      await (await fetch('/soap11', { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: 'ImpersonateLogoutRequest' }, body: soap })).text();
    }, { token, soap: soapRequestBody(DEFAULT_NAMESPACES) });
    await context.close(); // writes the HAR
  } finally {
    if (!shared) await browser.close();
  }
  return path;
}
