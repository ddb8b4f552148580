/**
 * MSW answers for issue 49's calls (the upload dialog's quota years, a sub-partner's link and QR
 * code, the own digest switch), spread into partnerHandlers so every partner story has them.
 */
import { http, HttpResponse } from "msw";

import type { Role } from "../api/auth";
import { member } from "./fixtures";

const API = "/api/partner";
// A small stand-in for the server's QR code (the real one is drawn by the qrcode package).
const QR_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 21"><rect width="21" height="21" fill="#fff"/>' +
  '<path d="M1 1h7v7H1zM13 1h7v7h-7zM1 13h7v7H1zM10 10h2v2h-2zM14 14h3v3h-3z" fill="#000"/></svg>';

export function exportsHandlers(role: Role = "partner_admin") {
  const year = new Date().getFullYear();
  return [
    http.get(`${API}/bulk_upload_years/`, () => HttpResponse.json({ years: [year, year + 1], default: year })),
    http.get(`${API}/sub_partners/:id/link/`, ({ params }) =>
      HttpResponse.json({ id: Number(params.id), url: `https://autohaus.example/?ref=PARTNER${params.id}` }),
    ),
    http.get(
      `${API}/sub_partners/:id/qr.svg`,
      () => new HttpResponse(QR_SVG, { headers: { "Content-Type": "image/svg+xml" } }),
    ),
    http.patch(`${API}/me/`, async ({ request }) => {
      const body = (await request.json()) as { digest_enabled: boolean };
      return HttpResponse.json({ ...member(role), digest_enabled: body.digest_enabled });
    }),
  ];
}
