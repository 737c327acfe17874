import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import './ui/styles.css';
import { i18nReady } from './i18n';
import { onUnauthenticated } from './api/client';
import { isApiError } from './api/errors';
import { isPublicPath, signInPath } from './app/paths';
import { router } from './router';
import { applyTheme, storedTheme } from './ui';

applyTheme(storedTheme());

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; network failures and 5xx get two more tries.
      retry: (count, error) => count < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: true,
      staleTime: 15_000,
    },
  },
  queryCache: new QueryCache(),
  mutationCache: new MutationCache(),
});

// A 401 anywhere but on the public pages: back to sign-in, then back here afterwards.
onUnauthenticated(() => {
  const { pathname, search } = window.location;
  if (isPublicPath(pathname)) return;
  queryClient.clear();
  void router.navigate(signInPath(pathname + search), { replace: true });
});

// The texts of the first locale come first (a chunk of their own); the app renders with them.
await i18nReady;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
