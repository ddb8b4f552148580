/**
 * The invisible bot check (self-hosted altcha proof of work): fetch a challenge, find the
 * number whose SHA-256 with the salt is the challenge (in a Web Worker: the login stays
 * responsive while it searches), and send the solution as `recaptcha`.
 */
import { apiClient } from "@/shared/lib/http";

import { type Challenge, solveChallenge } from "./bot-check-solver";

/** The search in a worker; null when the browser cannot start one (then the page searches). */
function solveInWorker(challenge: Challenge): Promise<string | null> | null {
  if (typeof Worker === "undefined") return null;
  let worker: Worker;
  try {
    worker = new Worker(new URL("./bot-check.worker.ts", import.meta.url), { type: "module" });
  } catch {
    return null;
  }
  return new Promise<string | null>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<{ solution: string | null }>) => {
      worker.terminate();
      resolve(event.data.solution);
    };
    worker.onerror = (event) => {
      worker.terminate();
      event.preventDefault();
      reject(new Error("bot check worker failed"));
    };
    worker.postMessage(challenge);
  });
}

export async function solveBotCheck(): Promise<string> {
  const challenge = await apiClient.get("/api/auth/bot-check/challenge/");
  let solution: string | null;
  try {
    solution = await (solveInWorker(challenge) ?? solveChallenge(challenge));
  } catch {
    // A worker that could not load (an old chunk after a deploy, a blocked script): the page.
    solution = await solveChallenge(challenge);
  }
  if (solution === null) throw new Error("bot check not solvable");
  return solution;
}
