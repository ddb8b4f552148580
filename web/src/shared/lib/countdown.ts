import { useCallback, useEffect, useState } from "react";

/** Seconds left until something may be done again (a resend), ticking once per second. */
export function useCountdown(initialSeconds: number): { seconds: number; restart: (seconds: number) => void } {
  const [until, setUntil] = useState(() => Date.now() + initialSeconds * 1000);
  const [now, setNow] = useState(() => Date.now());
  const seconds = Math.max(0, Math.ceil((until - now) / 1000));
  useEffect(() => {
    if (seconds <= 0) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [seconds > 0]); // eslint-disable-line react-hooks/exhaustive-deps
  const restart = useCallback((next: number) => {
    setNow(Date.now());
    setUntil(Date.now() + next * 1000);
  }, []);
  return { seconds, restart };
}
