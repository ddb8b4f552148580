import { api } from "@/shared/lib/http";
import { deviceInfo } from "@/shared/lib/device";

/** Device data of the browser that uploaded the registration's scan. */
export function deviceInfoSend(registration: number): Promise<unknown> {
  return api("fe_user_agent_data/", { json: { registration, ...deviceInfo() } });
}
