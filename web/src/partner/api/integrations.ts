/** The partner's interfaces (docs/partner-api.md, "API keys" and "Webhooks"): keys, webhooks,
 * their delivery log. Partner admins only. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { partner } from "./client";

export const SCOPES = ["read", "write"] as const;
export const EVENTS = ["application.status_changed", "bulk_upload.finished", "payout.paid", "payout.failed"] as const;

// The shapes are the server's (integrations/schemas.py), generated into shared/api/schema.d.ts.
export type ApiKey = Schemas["ApiKeyOut"];
export type MadeKey = Schemas["ApiKeyMadeOut"];
export type Webhook = Schemas["WebhookOut"];
export type MadeWebhook = Schemas["WebhookMadeOut"];
export type Delivery = Schemas["DeliveryOut"];

const KEYS_KEY = ["partner", "integrations", "api-keys"] as const;
const HOOKS_KEY = ["partner", "integrations", "webhooks"] as const;
const deliveriesKey = (endpointId: number) => ["partner", "integrations", "deliveries", endpointId] as const;

export const useApiKeys = () =>
  useQuery({
    queryKey: KEYS_KEY,
    queryFn: ({ signal }) => partner.get("/api/partner/integrations/api_keys/", { signal }),
  });

export function useApiKeyCreate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (values: { name: string; scope: (typeof SCOPES)[number] }) =>
      partner.post("/api/partner/integrations/api_keys/", { json: values }),
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS_KEY }),
  });
}

/** Rotate or revoke one key. */
export function useApiKeyAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: "rotate" | "revoke" }): Promise<ApiKey & { key?: string }> =>
      action === "rotate"
        ? partner.post("/api/partner/integrations/api_keys/{key_id}/rotate/", { path: { key_id: id } })
        : partner.post("/api/partner/integrations/api_keys/{key_id}/revoke/", { path: { key_id: id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS_KEY }),
  });
}

export const useWebhooks = () =>
  useQuery({
    queryKey: HOOKS_KEY,
    queryFn: ({ signal }) => partner.get("/api/partner/integrations/webhooks/", { signal }),
  });

export function useWebhookCreate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (values: { url: string; events: string[] }) =>
      partner.post("/api/partner/integrations/webhooks/", { json: values }),
    onSuccess: () => client.invalidateQueries({ queryKey: HOOKS_KEY }),
  });
}

export function useWebhookDelete() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      partner.delete("/api/partner/integrations/webhooks/{endpoint_id}/", { path: { endpoint_id: id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: HOOKS_KEY }),
  });
}

export function useWebhookTest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      partner.post("/api/partner/integrations/webhooks/{endpoint_id}/test/", { path: { endpoint_id: id } }),
    onSuccess: (delivery) => {
      void client.invalidateQueries({ queryKey: HOOKS_KEY });
      void client.invalidateQueries({ queryKey: deliveriesKey(delivery.endpoint_id) });
    },
  });
}

export const useDeliveries = (endpointId: number) =>
  useQuery({
    queryKey: deliveriesKey(endpointId),
    queryFn: ({ signal }) =>
      partner.get("/api/partner/integrations/webhooks/{endpoint_id}/deliveries/", {
        path: { endpoint_id: endpointId },
        query: { page_size: "50" },
        signal,
      }),
  });

export function useDeliveryResend() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      partner.post("/api/partner/integrations/webhook_deliveries/{delivery_id}/resend/", {
        path: { delivery_id: id },
      }),
    onSuccess: (delivery) => {
      void client.invalidateQueries({ queryKey: HOOKS_KEY });
      void client.invalidateQueries({ queryKey: deliveriesKey(delivery.endpoint_id) });
    },
  });
}
