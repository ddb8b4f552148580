import Alert from "@mui/material/Alert";
import Snackbar from "@mui/material/Snackbar";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from "react";

export const TOAST_TIMEOUT_MS = 4000;

type Toast = { success: boolean; content: string; timeout: number; id: number };
type Show = (content: string, options?: { success?: boolean; timeout?: number }) => void;

const ToasterContext = createContext<Show>(() => {});

/** The toaster of section 4: a message that clears itself after a timeout (4000 ms by default). */
export function ToasterProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<Toast | null>(null);
  // Each toast gets the next number: the Snackbar is keyed by it, so a new toast starts its own
  // timeout. (A clock in milliseconds gave two toasts of the same millisecond one key.)
  const lastId = useRef(0);
  const show = useCallback<Show>((content, options = {}) => {
    lastId.current += 1;
    setToast({
      content,
      success: options.success ?? false,
      timeout: options.timeout ?? TOAST_TIMEOUT_MS,
      id: lastId.current,
    });
  }, []);
  const value = useMemo(() => show, [show]);
  return (
    <ToasterContext.Provider value={value}>
      {children}
      <Snackbar
        key={toast?.id}
        open={toast !== null}
        autoHideDuration={toast?.timeout ?? TOAST_TIMEOUT_MS}
        onClose={(_, reason) => reason !== "clickaway" && setToast(null)}
        anchorOrigin={{ vertical: "top", horizontal: "center" }}
      >
        <Alert
          severity={toast?.success ? "success" : "error"}
          variant="filled"
          data-testid="toast"
          onClose={() => setToast(null)}
        >
          {toast?.content}
        </Alert>
      </Snackbar>
    </ToasterContext.Provider>
  );
}

export function useToaster(): Show {
  return useContext(ToasterContext);
}
