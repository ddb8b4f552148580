import { useMemo } from "react";
import { useSearchParams } from "react-router";

/** page / page_size / q of a simple list, in the URL. */
export function useListQuery(defaultSize = 25) {
  const [search, setSearch] = useSearchParams();
  const query = useMemo(() => {
    const next = new URLSearchParams();
    next.set("page", search.get("page") ?? "1");
    next.set("page_size", search.get("page_size") ?? String(defaultSize));
    for (const name of ["q", "action", "object_type"]) {
      const value = search.get(name);
      if (value) next.set(name, value);
    }
    return next;
  }, [search, defaultSize]);
  const set = (change: Record<string, string | null>) => {
    const next = new URLSearchParams(query);
    for (const [name, value] of Object.entries(change)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    if (!("page" in change)) next.set("page", "1");
    setSearch(next);
  };
  return {
    query,
    set,
    paginationModel: { page: Number(query.get("page")) - 1, pageSize: Number(query.get("page_size")) },
  };
}
