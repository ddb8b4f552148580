/** The bot check's search off the main thread: one challenge in, its solution (or null) out. */
import { type Challenge, solveChallenge } from "./bot-check-solver";

// The worker's global scope, in the terms the page's types know (the app compiles with DOM).
const scope = self as unknown as { onmessage: ((event: MessageEvent<Challenge>) => void) | null; postMessage: (message: unknown) => void };

scope.onmessage = (event) => {
  void solveChallenge(event.data).then(
    (solution) => scope.postMessage({ solution }),
    () => scope.postMessage({ solution: null }),
  );
};
