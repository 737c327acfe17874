import { httpError } from '../../../core/http/errors.js';

/** What the rules look at: the four choices of execution settings. */
export interface ExecutionChoice {
  mode: string;
  agent: string;
  auth: string | null;
  transport: string | null;
}

type Locale = 'en' | 'it';
type Text = Record<Locale, string>;

export interface ExecutionRule {
  id: number;
  /**
   * Whether PATCH /v1/workspaces/{id} applies it too. Rules 2–4 judge a whole choice (a
   * workspace's defaults, agent builtin and no transport, would break them on a PATCH that
   * changes the mode alone), so only the wizard and PUT execution apply them.
   */
  onPatch: boolean;
  /** Whether the choice breaks the rule. */
  matches(c: ExecutionChoice): boolean;
  message: Text;
  suggestion: Text;
}

const CLOUD = new Set(['cloud_a', 'cloud_b']);

/**
 * The forbidden combinations of mode × agent × auth × transport (docs/onboarding.md has the
 * table). The first rule a choice breaks answers 422 forbidden_combination.
 */
export const EXECUTION_RULES: readonly ExecutionRule[] = [
  {
    id: 1,
    onPatch: true,
    matches: (c) => c.mode === 'managed' && c.agent === 'other',
    message: {
      en: 'The managed sandbox runs only the agents Patchwell ships; an agent of your own cannot run there.',
      it: 'La sandbox gestita esegue solo gli agenti forniti da Patchwell; un agente tuo non può girare lì.',
    },
    suggestion: {
      en: 'Choose runner mode to run your own agent, or pick one of the listed agents.',
      it: 'Scegli la modalità runner per usare il tuo agente, oppure uno degli agenti elencati.',
    },
  },
  {
    id: 2,
    onPatch: false,
    matches: (c) => c.mode === 'mcp' && c.transport !== null,
    message: {
      en: 'In mcp mode your IDE agent works through the MCP endpoint; there is no runner, so no transport.',
      it: 'In modalità mcp il tuo agente nell’IDE lavora tramite l’endpoint MCP; non c’è un runner, quindi nessun trasporto.',
    },
    suggestion: {
      en: 'Leave transport empty, or choose runner mode to use a runner.',
      it: 'Lascia vuoto il trasporto, oppure scegli la modalità runner per usare un runner.',
    },
  },
  {
    id: 3,
    onPatch: false,
    matches: (c) => c.agent === 'builtin' && c.mode !== 'managed',
    message: {
      en: 'The built-in assistant runs inside Patchwell; it cannot run on your runner or in your IDE.',
      it: 'L’assistente integrato gira dentro Patchwell; non può girare sul tuo runner né nel tuo IDE.',
    },
    suggestion: {
      en: 'Choose managed mode for the built-in assistant, or pick an agent for your runner or IDE.',
      it: 'Scegli la modalità gestita per l’assistente integrato, oppure un agente per il tuo runner o IDE.',
    },
  },
  {
    id: 4,
    onPatch: false,
    matches: (c) => c.mode === 'runner' && c.transport === null,
    message: {
      en: 'Runner mode needs a transport: GitHub-style Actions in the repository, or a container you run.',
      it: 'La modalità runner richiede un trasporto: le Actions nel repository oppure un container che esegui tu.',
    },
    suggestion: {
      en: 'Set transport to github_actions or container.',
      it: 'Imposta il trasporto a github_actions o container.',
    },
  },
  {
    id: 5,
    onPatch: true,
    matches: (c) => c.auth === 'account_login' && c.transport === 'github_actions',
    message: {
      en: 'An account login file renews itself and cannot live in a CI secret of the repository.',
      it: 'Un file di accesso dell’account si rinnova da solo e non può stare in un segreto CI del repository.',
    },
    suggestion: {
      en: 'Use an API key with github_actions, or the container transport for the login file.',
      it: 'Usa una chiave API con github_actions, oppure il trasporto container per il file di accesso.',
    },
  },
  {
    id: 6,
    onPatch: true,
    matches: (c) => c.auth === 'subscription' && c.mode !== 'mcp',
    message: {
      en: 'A subscription login belongs to one person and may only be used from their own IDE agent.',
      it: 'Un accesso in abbonamento appartiene a una persona e può essere usato solo dal suo agente nell’IDE.',
    },
    suggestion: {
      en: 'Choose mcp mode to work with your subscription, or use an API key for managed or runner mode.',
      it: 'Scegli la modalità mcp per lavorare con il tuo abbonamento, oppure usa una chiave API per la modalità gestita o runner.',
    },
  },
  {
    id: 7,
    onPatch: true,
    matches: (c) => c.mode === 'mcp' && c.auth !== null && CLOUD.has(c.auth),
    message: {
      en: 'Cloud credentials are for the managed sandbox or your runner; in mcp mode the IDE agent signs in by itself.',
      it: 'Le credenziali cloud servono alla sandbox gestita o al tuo runner; in modalità mcp l’agente nell’IDE accede da solo.',
    },
    suggestion: {
      en: 'Choose managed or runner mode for cloud credentials, or subscription or api-key in mcp mode.',
      it: 'Scegli la modalità gestita o runner per le credenziali cloud, oppure subscription o api-key in modalità mcp.',
    },
  },
];

/** The first rule the choice breaks, or null. */
export function brokenRule(c: ExecutionChoice, opts: { patch?: boolean } = {}): ExecutionRule | null {
  return EXECUTION_RULES.find((r) => (!opts.patch || r.onPatch) && r.matches(c)) ?? null;
}

/** Throws 422 forbidden_combination for a forbidden choice, with the texts in `locale`. */
export function assertAllowed(
  c: ExecutionChoice,
  locale: string | null | undefined,
  opts: { patch?: boolean } = {},
): void {
  const rule = brokenRule(c, opts);
  if (!rule) return;
  const l: Locale = locale === 'it' ? 'it' : 'en';
  throw httpError(422, 'forbidden_combination', rule.message.en, {
    rule: rule.id,
    message: rule.message[l],
    suggestion: rule.suggestion[l],
    locale: l,
    combination: { mode: c.mode, agent: c.agent, auth: c.auth, transport: c.transport },
  });
}
