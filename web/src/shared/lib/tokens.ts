import { z } from "zod";

/** The access and refresh token pair every login answer carries (flow and portal alike). */
export const tokensSchema = z.object({ access: z.string().min(1), refresh: z.string().min(1) });
