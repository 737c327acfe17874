import { readFileSync } from 'node:fs';
import { TICKET_CATEGORIES, type TicketCategory } from '../../core/contracts/index.js';

/** One labelled example (adapters/agent-builtin/data/samples.jsonl). */
export interface Sample {
  language: string;
  category: TicketCategory;
  text: string;
}

export interface Prediction {
  category: TicketCategory;
  /** Calibrated probability of `category` (0..1). */
  confidence: number;
  /** Calibrated probability of every category. */
  probabilities: Record<TicketCategory, number>;
}

const STOP = new Set([
  // English and Italian words that say nothing about the category.
  'the',
  'a',
  'an',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'is',
  'it',
  'my',
  'i',
  'me',
  'we',
  'you',
  'your',
  'for',
  'with',
  'this',
  'that',
  'be',
  'at',
  'from',
  'are',
  'do',
  'il',
  'lo',
  'la',
  'le',
  'gli',
  'un',
  'una',
  'uno',
  'di',
  'da',
  'in',
  'su',
  'per',
  'con',
  'che',
  'e',
  'o',
  'mi',
  'ci',
  'si',
  'del',
  'della',
  'dei',
  'nel',
  'nella',
  'al',
  'alla',
]);

/** Words and 5-letter stems (so `esportare` and `esportazione` share `espor`). */
export function features(text: string): string[] {
  const words =
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    if (w.length < 2 || STOP.has(w)) continue;
    out.push(`w:${w}`);
    if (w.length > 5) out.push(`s:${w.slice(0, 5)}`);
  }
  // Stack traces and error words are strong bug signals in any language.
  if (/\b(?:TypeError|ReferenceError|Exception|Error \d{3}|\d{3} error|stack|undefined|null)\b/i.test(text))
    out.push('x:error');
  return out;
}

/**
 * A multinomial naive Bayes over words and stems with Laplace smoothing, whose scores are
 * calibrated by a temperature fitted on k-fold cross-validation of its own training data (naive
 * Bayes is overconfident; dividing its log-odds by T > 1 makes "0.8" mean right about 80 % of
 * the time). Deterministic: the same data gives the same model.
 */
export class NaiveBayes {
  private readonly logPrior = new Map<TicketCategory, number>();
  private readonly logLik = new Map<TicketCategory, Map<string, number>>();
  private readonly logUnseen = new Map<TicketCategory, number>();
  private vocabulary = new Set<string>();
  temperature = 1;

  constructor(samples: Sample[], opts: { alpha?: number; calibrate?: boolean; folds?: number } = {}) {
    this.fit(samples, opts.alpha ?? 0.5);
    if (opts.calibrate !== false)
      this.temperature = NaiveBayes.fitTemperature(samples, opts.alpha ?? 0.5, opts.folds ?? 5);
  }

  private fit(samples: Sample[], alpha: number): void {
    const counts = new Map<TicketCategory, Map<string, number>>();
    const docs = new Map<TicketCategory, number>();
    this.vocabulary = new Set();
    for (const s of samples) {
      docs.set(s.category, (docs.get(s.category) ?? 0) + 1);
      const c = counts.get(s.category) ?? new Map<string, number>();
      for (const f of features(s.text)) {
        c.set(f, (c.get(f) ?? 0) + 1);
        this.vocabulary.add(f);
      }
      counts.set(s.category, c);
    }
    const v = this.vocabulary.size;
    for (const cat of TICKET_CATEGORIES) {
      const c = counts.get(cat) ?? new Map<string, number>();
      const total = [...c.values()].reduce((a, b) => a + b, 0);
      const denom = total + alpha * v;
      const lik = new Map<string, number>();
      for (const [f, n] of c) lik.set(f, Math.log((n + alpha) / denom));
      this.logLik.set(cat, lik);
      this.logUnseen.set(cat, Math.log(alpha / denom));
      // Uniform prior: the sample file is balanced on purpose; real traffic mixes vary by product.
      this.logPrior.set(cat, Math.log(1 / TICKET_CATEGORIES.length));
    }
  }

  /** Log-scores per category (before calibration). */
  scores(text: string): Map<TicketCategory, number> {
    const fs = features(text).filter((f) => this.vocabulary.has(f));
    const out = new Map<TicketCategory, number>();
    for (const cat of TICKET_CATEGORIES) {
      const lik = this.logLik.get(cat)!;
      const unseen = this.logUnseen.get(cat)!;
      out.set(cat, this.logPrior.get(cat)! + fs.reduce((sum, f) => sum + (lik.get(f) ?? unseen), 0));
    }
    return out;
  }

  predict(text: string, temperature = this.temperature): Prediction {
    const scores = this.scores(text);
    const max = Math.max(...scores.values());
    const exp = new Map([...scores].map(([k, s]) => [k, Math.exp((s - max) / temperature)] as const));
    const z = [...exp.values()].reduce((a, b) => a + b, 0);
    const probabilities = Object.fromEntries(TICKET_CATEGORIES.map((c) => [c, exp.get(c)! / z])) as Record<
      TicketCategory,
      number
    >;
    let best: TicketCategory = 'unknown';
    for (const c of TICKET_CATEGORIES) if (probabilities[c] > probabilities[best]) best = c;
    // Nothing known in the text: say so rather than guess.
    if (features(text).every((f) => !this.vocabulary.has(f))) best = 'unknown';
    return { category: best, confidence: round(probabilities[best]), probabilities };
  }

  /** Cross-validated predictions: each sample scored by a model trained without its fold. */
  static crossValidate(
    samples: Sample[],
    folds: number,
    alpha = 0.5,
  ): Array<{ sample: Sample; scores: Map<TicketCategory, number>; model: NaiveBayes }> {
    const out: Array<{ sample: Sample; scores: Map<TicketCategory, number>; model: NaiveBayes }> = [];
    for (let k = 0; k < folds; k++) {
      const train = samples.filter((_, i) => i % folds !== k);
      const model = new NaiveBayes(train, { alpha, calibrate: false });
      samples.forEach((s, i) => {
        if (i % folds === k) out.push({ sample: s, scores: model.scores(s.text), model });
      });
    }
    return out;
  }

  /** The temperature (0.2..20) that minimizes the cross-validated negative log-likelihood. */
  static fitTemperature(samples: Sample[], alpha: number, folds: number): number {
    const cv = NaiveBayes.crossValidate(samples, folds, alpha);
    let best = 1;
    let bestNll = Infinity;
    for (let t = 0.2; t <= 20; t = Math.round((t + (t < 2 ? 0.05 : 0.25)) * 100) / 100) {
      let nll = 0;
      for (const { sample, scores } of cv) {
        const max = Math.max(...scores.values());
        let z = 0;
        for (const s of scores.values()) z += Math.exp((s - max) / t);
        nll -= (scores.get(sample.category)! - max) / t - Math.log(z);
      }
      if (nll < bestNll - 1e-9) {
        bestNll = nll;
        best = t;
      }
    }
    return best;
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export function loadSamples(url: URL = new URL('./data/samples.jsonl', import.meta.url)): Sample[] {
  return readFileSync(url, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Sample);
}

let shared: NaiveBayes | null = null;

/** The model trained on the shipped sample file (built once per process). */
export function defaultClassifier(): NaiveBayes {
  return (shared ??= new NaiveBayes(loadSamples()));
}
