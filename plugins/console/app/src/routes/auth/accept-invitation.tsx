import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { invitationKeys } from '../../queries/invitations';
import { useSetSession } from '../../queries/session';
import {
  Button,
  ErrorAlert,
  Form,
  NewPasswordField,
  ErrorState,
  LoadingState,
  TextField,
  fieldError,
  useFormat,
} from '../../ui';

/** /invitations/accept?token=: who invites, to which organization and role; accept to join. */
export default function AcceptInvitation() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const preview = useQuery({
    queryKey: invitationKeys.preview(token),
    queryFn: () => data(api.POST('/v1/invitations/preview', { body: { token } })),
    enabled: token !== '',
    retry: false,
  });
  const accept = useMutation({
    mutationFn: (newAccount: boolean) =>
      data(api.POST('/v1/invitations/accept', { body: newAccount ? { token, name, password } : { token } })),
    onSuccess: (ctx) => {
      setSession(ctx);
      void navigate('/', { replace: true });
    },
  });
  if (!token)
    return (
      <div className="alert alert-error" role="alert">
        {t('auth.missingToken')}
      </div>
    );
  if (preview.isPending) return <LoadingState />;
  if (preview.isError) return <ErrorState error={preview.error} />;
  const inv = preview.data;
  const submit = () => {
    accept.mutate(!inv.existing_account);
  };
  return (
    <div className="stack">
      <h1>{t('auth.invitation.title', { org: inv.organization.name })}</h1>
      <p>
        {inv.invited_by
          ? t('auth.invitation.byWhom', { name: inv.invited_by.name, email: inv.email, role: t(`roles.${inv.role}`) })
          : t('auth.invitation.byNobody', { email: inv.email, role: t(`roles.${inv.role}`) })}
      </p>
      <p className="muted">{t('auth.invitation.expires', { date: fmt.dateTime(inv.expires_at) })}</p>
      <ErrorAlert error={accept.error} fields={['name', 'password']} />
      <Form className="stack" onSubmit={submit}>
        {!inv.existing_account && (
          <>
            <TextField
              label={t('fields.name')}
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={fieldError(accept.error, 'name')}
            />
            <NewPasswordField
              label={t('fields.password')}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={fieldError(accept.error, 'password')}
            />
          </>
        )}
        <Button type="submit" variant="primary" block pending={accept.isPending}>
          {t('auth.invitation.accept')}
        </Button>
      </Form>
    </div>
  );
}
