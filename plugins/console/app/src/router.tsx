import { lazy } from 'react';
import { createBrowserRouter, Navigate, Outlet } from 'react-router';
import { AuthLayout } from './app/auth-layout';
import { RequireSession } from './app/shell';
import { RequireRole } from './app/require-role';
import { RouteError } from './app/route-error';
import { ToastProvider } from './ui';

// Every page is its own chunk (first load stays small); the layouts hold the Suspense fallbacks.
const SignIn = lazy(() => import('./routes/auth/sign-in'));
const SignUp = lazy(() => import('./routes/auth/sign-up'));
const VerifyEmail = lazy(() => import('./routes/auth/verify-email'));
const MagicLink = lazy(() => import('./routes/auth/magic-link'));
const ForgotPassword = lazy(() => import('./routes/auth/forgot-password'));
const ResetPassword = lazy(() => import('./routes/auth/reset-password'));
const AcceptInvitation = lazy(() => import('./routes/auth/accept-invitation'));
const SsoConfirm = lazy(() => import('./routes/auth/sso-confirm'));
const Home = lazy(() => import('./routes/home'));
const Onboarding = lazy(() => import('./routes/onboarding/wizard'));
const Tickets = lazy(() => import('./routes/tickets/list'));
const TicketPage = lazy(() => import('./routes/tickets/detail'));
const Approvals = lazy(() => import('./routes/approvals/queue'));
const Profile = lazy(() => import('./routes/settings/profile'));
const CodeHostInstalled = lazy(() => import('./routes/settings/code-host-installed'));
const Workspaces = lazy(() => import('./routes/workspaces/list'));
const WorkspaceSettings = lazy(() => import('./routes/workspaces/settings'));
const Team = lazy(() => import('./routes/team/page'));
const Tokens = lazy(() => import('./routes/team/tokens'));
const AuditLog = lazy(() => import('./routes/audit/log'));
const AuditStream = lazy(() => import('./routes/audit/stream'));
const Privacy = lazy(() => import('./routes/privacy/page'));
const InboxSettings = lazy(() => import('./routes/inbox/page'));
const CodeSettings = lazy(() => import('./routes/code/page'));
const Organization = lazy(() => import('./routes/security/organization'));
const Security = lazy(() => import('./routes/security/page'));
const Brand = lazy(() => import('./routes/brand/page'));
const BrandProfile = lazy(() => import('./routes/brand/profile'));
const ErrorGroups = lazy(() => import('./routes/proactive/error-groups'));
const ErrorGroup = lazy(() => import('./routes/proactive/error-group'));
const Releases = lazy(() => import('./routes/proactive/releases'));
const ReleasePage = lazy(() => import('./routes/proactive/release'));
const Proactive = lazy(() => import('./routes/proactive/page'));
const Billing = lazy(() => import('./routes/billing/page'));
const AgencyOverview = lazy(() => import('./routes/agency/overview'));
const AgencyClient = lazy(() => import('./routes/agency/client'));
const AgencyReport = lazy(() => import('./routes/agency/report'));
const AgencyResale = lazy(() => import('./routes/agency/resale'));
const AgencyPartner = lazy(() => import('./routes/agency/partner'));
const Analytics = lazy(() => import('./routes/analytics/page'));
const StaffOrganizations = lazy(() => import('./routes/staff/organizations'));
const StaffOrganization = lazy(() => import('./routes/staff/organization'));
const StaffClaims = lazy(() => import('./routes/staff/claims'));
const StaffOnboarding = lazy(() => import('./routes/staff/onboarding'));
const NotFound = lazy(() => import('./app/not-found'));

function Root() {
  return (
    <ToastProvider>
      <Outlet />
    </ToastProvider>
  );
}

export const router = createBrowserRouter([
  {
    element: <Root />,
    errorElement: <RouteError />,
    children: [
      {
        element: <AuthLayout />,
        children: [
          { path: 'login', element: <SignIn /> },
          { path: 'signup', element: <SignUp /> },
          { path: 'verify-email', element: <VerifyEmail /> },
          { path: 'magic-link', element: <MagicLink /> },
          { path: 'forgot-password', element: <ForgotPassword /> },
          { path: 'reset-password', element: <ResetPassword /> },
          { path: 'invitations/accept', element: <AcceptInvitation /> },
          { path: 'sso/confirm', element: <SsoConfirm /> },
        ],
      },
      {
        element: <RequireSession />,
        children: [
          { index: true, element: <Home /> },
          {
            path: 'onboarding',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Onboarding />
              </RequireRole>
            ),
          },
          { path: 'tickets', element: <Tickets /> },
          { path: 'tickets/:id', element: <TicketPage /> },
          { path: 'approvals', element: <Approvals /> },
          { path: 'settings', element: <Navigate to="/settings/profile" replace /> },
          { path: 'settings/profile', element: <Profile /> },
          { path: 'settings/code-host/installed', element: <CodeHostInstalled /> },
          { path: 'settings/tokens', element: <Tokens /> },
          {
            path: 'workspaces',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Workspaces />
              </RequireRole>
            ),
          },
          {
            path: 'workspaces/:id',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <WorkspaceSettings />
              </RequireRole>
            ),
          },
          {
            path: 'team',
            element: (
              <RequireRole roles={['owner', 'admin', 'reviewer']}>
                <Team />
              </RequireRole>
            ),
          },
          {
            path: 'audit',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AuditLog />
              </RequireRole>
            ),
          },
          {
            path: 'audit/stream',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AuditStream />
              </RequireRole>
            ),
          },
          {
            path: 'privacy',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Privacy />
              </RequireRole>
            ),
          },
          {
            path: 'settings/inbox',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <InboxSettings />
              </RequireRole>
            ),
          },
          {
            path: 'settings/code',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <CodeSettings />
              </RequireRole>
            ),
          },
          {
            path: 'settings/organization',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Organization />
              </RequireRole>
            ),
          },
          {
            path: 'security',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Security />
              </RequireRole>
            ),
          },
          {
            path: 'brand',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Brand />
              </RequireRole>
            ),
          },
          {
            path: 'brand/:id',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <BrandProfile />
              </RequireRole>
            ),
          },
          { path: 'error-groups', element: <ErrorGroups /> },
          { path: 'error-groups/:id', element: <ErrorGroup /> },
          { path: 'releases', element: <Releases /> },
          { path: 'releases/:id', element: <ReleasePage /> },
          {
            path: 'proactive',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Proactive />
              </RequireRole>
            ),
          },
          {
            path: 'proactive/:tab',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <Proactive />
              </RequireRole>
            ),
          },
          {
            path: 'billing',
            element: (
              <RequireRole roles={['owner', 'admin', 'reviewer']}>
                <Billing />
              </RequireRole>
            ),
          },
          {
            path: 'agency',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AgencyOverview />
              </RequireRole>
            ),
          },
          {
            path: 'agency/clients/:id',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AgencyClient />
              </RequireRole>
            ),
          },
          {
            path: 'agency/reports/:id',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AgencyReport />
              </RequireRole>
            ),
          },
          {
            path: 'agency/resale',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AgencyResale />
              </RequireRole>
            ),
          },
          {
            path: 'agency/partner',
            element: (
              <RequireRole roles={['owner', 'admin']}>
                <AgencyPartner />
              </RequireRole>
            ),
          },
          { path: 'analytics', element: <Analytics /> },
          { path: 'staff', element: <Navigate to="/staff/organizations" replace /> },
          { path: 'staff/organizations', element: <StaffOrganizations /> },
          { path: 'staff/organizations/:id', element: <StaffOrganization /> },
          { path: 'staff/claims', element: <StaffClaims /> },
          { path: 'staff/onboarding', element: <StaffOnboarding /> },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
]);
