/**
 * The search of the bot check (altcha's proof of work): the number whose SHA-256 with the salt
 * is the challenge. Runs in a Web Worker (bot-check.worker.ts) so the page stays responsive on
 * a slow phone; where there is no worker, on the page itself.
 */
export type Challenge = { algorithm: "SHA-256"; challenge: string; maxnumber: number; salt: string; signature: string };

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const BATCH = 2000;

/** The solution as the server reads it (base64 of altcha's JSON payload), or null. */
export async function solveChallenge(challenge: Challenge): Promise<string | null> {
  for (let start = 0; start <= challenge.maxnumber; start += BATCH) {
    const numbers = Array.from({ length: Math.min(BATCH, challenge.maxnumber - start + 1) }, (_, i) => start + i);
    const hashes = await Promise.all(numbers.map((n) => sha256Hex(`${challenge.salt}${n}`)));
    const found = hashes.indexOf(challenge.challenge);
    if (found >= 0) {
      const { algorithm, salt, signature } = challenge;
      return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number: numbers[found], salt, signature }));
    }
  }
  return null;
}
