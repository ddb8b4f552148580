/** Desktop: a wide window with a fine pointer (a mouse), as opposed to a phone or tablet. */
export function isDesktop(win: Window = window): boolean {
  if (typeof win.matchMedia !== "function") return false;
  return win.matchMedia("(min-width: 900px) and (pointer: fine)").matches;
}

export type DeviceInfo = {
  device_type: "mobile" | "desktop";
  device_name: string;
  browser_version: string;
  os_name: string;
  os_version: string;
  full_user_agent_string: string;
};

const OS_RULES: [RegExp, string][] = [
  [/Android ([\d.]+)/, "Android"],
  [/(?:iPhone|CPU) OS ([\d_]+)/, "iOS"],
  [/Windows NT ([\d.]+)/, "Windows"],
  [/Mac OS X ([\d_.]+)/, "macOS"],
  [/CrOS \S+ ([\d.]+)/, "ChromeOS"],
  [/Linux()/, "Linux"],
];

const BROWSER_RULES: [RegExp, string][] = [
  [/Edg\/([\d.]+)/, "Edge"],
  [/SamsungBrowser\/([\d.]+)/, "Samsung Internet"],
  [/Firefox\/([\d.]+)/, "Firefox"],
  [/Chrom(?:e|ium)\/([\d.]+)/, "Chrome"],
  [/Version\/([\d.]+).*Safari/, "Safari"],
];

/** What the device info call reports, read from the user agent string. */
export function deviceInfo(userAgent: string = navigator.userAgent, desktop: boolean = isDesktop()): DeviceInfo {
  const os = OS_RULES.find(([rule]) => rule.test(userAgent));
  const browser = BROWSER_RULES.find(([rule]) => rule.test(userAgent));
  const model = /\(([^;)]+);\s*(?:U;\s*)?Android[^;)]*;\s*([^;)]+?)(?:\sBuild|\))/.exec(userAgent)?.[2];
  return {
    device_type: desktop ? "desktop" : "mobile",
    device_name: model ?? (/iPhone|iPad/.exec(userAgent)?.[0] || (desktop ? "Desktop" : "")),
    browser_version: browser ? `${browser[1]} ${browser[0].exec(userAgent)?.[1] ?? ""}`.trim() : "",
    os_name: os?.[1] ?? "",
    os_version: os ? (os[0].exec(userAgent)?.[1] ?? "").replaceAll("_", ".") : "",
    full_user_agent_string: userAgent.slice(0, 1000),
  };
}
