import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { Component, type ErrorInfo, Fragment, type ReactNode } from "react";

import { reportError } from "@/shared/lib/error-reporting";

import { retryFailedScreens } from "@/shared/lib/lazy-screen";

// resetKey: when it changes (the visitor went elsewhere) a shown error is cleared.
type Props = { children: ReactNode; resetKey?: string; onRetry?: () => void };
type State = { error: Error | null; attempt: number };

/**
 * A screen that failed to render (or whose chunk did not arrive) shows a friendly message
 * with a retry instead of a blank page. Retry remounts the screen: a lazy screen fetches its
 * chunk again (lazyScreen drops a failed load).
 */
export class RouteErrorBoundary extends Component<Props, State> {
  state: State = { error: null, attempt: 0 };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    // The browser console is where a support call starts; Sentry too when it is configured.
    console.error("screen failed", error, info.componentStack);
    reportError(error, info.componentStack ?? undefined);
  }

  componentDidUpdate(previous: Props): void {
    if (this.state.error && previous.resetKey !== this.props.resetKey) {
      retryFailedScreens();
      this.setState({ error: null });
    }
  }

  retry = () => {
    retryFailedScreens();
    this.props.onRetry?.();
    this.setState(({ attempt }) => ({ error: null, attempt: attempt + 1 }));
  };

  render() {
    if (this.state.error) {
      return (
        <Box role="alert" data-testid="screen-error" sx={{ minHeight: "60vh", display: "grid", placeItems: "center", p: 3, textAlign: "center" }}>
          <Box>
            <Typography variant="h1" component="h1" sx={{ mb: 2 }}>
              Da ist etwas schiefgelaufen
            </Typography>
            <Typography sx={{ mb: 3 }}>
              Dieser Schritt konnte nicht geladen werden. Bitte prüfen Sie Ihre Internetverbindung und versuchen Sie es erneut.
            </Typography>
            <Button variant="contained" onClick={this.retry} data-testid="screen-error-retry">
              Erneut versuchen
            </Button>
          </Box>
        </Box>
      );
    }
    return <Fragment key={this.state.attempt}>{this.props.children}</Fragment>;
  }
}
