import { useCallback } from "react";
import { useLocation, useNavigate } from "react-router";

/** A path with the current query string: the flow keeps its query across screens. */
export function withQuery(pathname: string, search: string): { pathname: string; search: string } {
  return { pathname, search: search && search !== "?" ? search : "" };
}

export function useFlowNavigate(): (pathname: string, options?: { replace?: boolean }) => void {
  const navigate = useNavigate();
  const { search } = useLocation();
  return useCallback(
    (pathname: string, options?: { replace?: boolean }) => navigate(withQuery(pathname, search), options),
    [navigate, search],
  );
}

export function isB2BPath(pathname: string): boolean {
  return pathname.includes("/b2b");
}

/** The current query with one key set (or removed when value is null). */
export function queryWith(search: string, key: string, value: string | null): string {
  const params = new URLSearchParams(search);
  if (value === null) params.delete(key);
  else params.set(key, value);
  const query = params.toString();
  return query ? `?${query}` : "";
}
