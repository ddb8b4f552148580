/**
 * The one typed client of the API (issue 50): every call names an operation of the OpenAPI
 * document (`schema.d.ts`, generated from `openapi.json`, which tools/openapi_export.py writes
 * from the server's code) by its path and method, and gets the types of that operation: its
 * path parameters, its JSON body and its success answer. A changed answer on the server is a
 * type error here, at build time, not a surprise in the browser.
 *
 * The transport stays each area's own (the partner area's cookie and CSRF header, the flow's
 * and portal's bearer token with its silent refresh): `typedClient` puts the types over it.
 */
import type { components, paths } from "./schema";

/** The document's named shapes: `Schemas["FeeTableOut"]`. */
export type Schemas = components["schemas"];

export type Method = "get" | "put" | "post" | "delete" | "patch";

/** The paths that have an operation for this method. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends undefined ? never : P;
}[keyof paths];

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type Success<R> = 200 extends keyof R
  ? R[200]
  : 201 extends keyof R
    ? R[201]
    : 202 extends keyof R
      ? R[202]
      : 204 extends keyof R
        ? R[204]
        : never;

type JsonContent<A> = A extends { content: { "application/json": infer J } } ? J : null;

/** The JSON of an operation's success answer (200, else 201, else 202; null for 204 and downloads). */
export type Answer<P extends PathsWith<M>, M extends Method> = JsonContent<Success<Operation<P, M>["responses"]>>;

/** The JSON body an operation reads (never: it reads none, or a form). */
type RequestBody<P extends PathsWith<M>, M extends Method> = NonNullable<Operation<P, M>["requestBody"]>;
export type Body<P extends PathsWith<M>, M extends Method> = [RequestBody<P, M>] extends [never]
  ? never
  : RequestBody<P, M> extends { content: { "application/json": infer B } }
    ? B
    : never;

type PathParameters<P extends PathsWith<M>, M extends Method> = Operation<P, M>["parameters"]["path"];

type Query = URLSearchParams | Record<string, string>;

/** A body the operation does not declare as JSON: multipart (uploads) or url-encoded (the flow's
 * and portal's form calls). */
type Form = FormData | URLSearchParams;

/** What a call takes besides its path: the path's parameters where it has any, the JSON body
 * where it reads one, else optionally a form; plus the area's own options (`Extra`, e.g. the
 * flow's `plain` call without partner headers). */
export type Init<P extends PathsWith<M>, M extends Method, Extra = unknown> = {
  query?: Query;
  signal?: AbortSignal;
} & Extra & ([
  PathParameters<P, M>,
] extends [undefined]
  ? { path?: undefined }
  : { path: NonNullable<PathParameters<P, M>> }) &
  ([Body<P, M>] extends [never] ? { json?: undefined; form?: Form } : { json: Body<P, M>; form?: undefined });

/** Options of an area's fetch helper (partnerApi, api). */
export type TransportOptions = { method: string; json?: unknown; form?: Form; query?: Query; signal?: AbortSignal };
export type Transport<Extra = unknown> = (path: string, options: TransportOptions & Partial<Extra>) => Promise<unknown>;

/** `/api/partner/x/{id}/` with `{ id: 7 }` → `x/7/` below the client's prefix. */
export function fillPath(template: string, prefix: string, parameters?: Record<string, unknown>): string {
  if (!template.startsWith(prefix)) throw new Error(`${template} is not below ${prefix}`);
  return template.slice(prefix.length).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = parameters?.[name];
    if (value === undefined || value === null) throw new Error(`${template}: no value for ${name}`);
    return encodeURIComponent(String(value));
  });
}

type Call<M extends Method, Prefix extends string, Extra> = <P extends Extract<PathsWith<M>, `${Prefix}${string}`>>(
  path: P,
  ...init: Init<P, M> extends { path: unknown } | { json: unknown }
    ? [Init<P, M, Partial<Extra>>]
    : [Init<P, M, Partial<Extra>>?]
) => Promise<Answer<P, M>>;

export type TypedClient<Prefix extends string, Extra = unknown> = { [M in Method]: Call<M, Prefix, Extra> };

/** The typed calls of the paths below `prefix`, sent through `transport`; the area's own
 * options (`Extra`) go to the transport as given. */
export function typedClient<Prefix extends string, Extra = unknown>(
  prefix: Prefix,
  transport: Transport<Extra>,
): TypedClient<Prefix, Extra> {
  const call =
    (method: Method) =>
    (
      path: string,
      {
        path: parameters,
        json,
        form,
        query,
        signal,
        ...extra
      }: {
        path?: Record<string, unknown>;
        json?: unknown;
        form?: Form;
        query?: Query;
        signal?: AbortSignal;
      } = {},
    ) =>
      transport(fillPath(path, prefix, parameters), {
        ...(extra as Partial<Extra>),
        method: method.toUpperCase(),
        json,
        form,
        query,
        signal,
      });
  return {
    get: call("get"),
    put: call("put"),
    post: call("post"),
    delete: call("delete"),
    patch: call("patch"),
  } as TypedClient<Prefix, Extra>;
}
