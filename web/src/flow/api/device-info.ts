import { deviceInfo } from "@/shared/lib/device";
import { apiClient } from "@/shared/lib/http";

/** Device data of the browser that uploaded the registration's scan. */
export function deviceInfoSend(registration: number): Promise<unknown> {
  return apiClient.post("/api/fe_user_agent_data/", { json: { registration, ...deviceInfo() } });
}
