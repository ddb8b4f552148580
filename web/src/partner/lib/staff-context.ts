import { createContext, useContext } from "react";

import type { Me } from "../api/auth";

/** The logged-in staff member (the layout provides it once `me/` answered). */
export const StaffContext = createContext<Me | null>(null);

export function useStaffMember(): Me {
  const me = useContext(StaffContext);
  if (!me) throw new Error("useStaffMember outside of the partner layout");
  return me;
}
