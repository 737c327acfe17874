import { TenantModel } from '../../../core/data/model.js';
import { iso } from '../../../core/http/times.js';

/** A learned problem → fix pattern (table `patterns`). */
export class Pattern extends TenantModel {
  static override tableName = 'patterns';
  static override idPrefix = 'pat';
  static override jsonAttributes = ['frames', 'keywords'];

  declare workspace_id: string;
  declare source_ticket_id: string | null;
  declare title: string;
  declare category: string;
  declare error_type: string | null;
  declare normalized_message: string;
  declare frames: Array<{ file: string; function: string }>;
  declare keywords: string[];
  declare signature: string;
  declare group_fingerprint: string | null;
  declare fix_summary: string;
  declare files_changed: number | null;
  declare additions: number | null;
  declare deletions: number | null;
  declare shared: boolean;
  declare created_by_user_id: string | null;
  declare updated_at: Date;
}

export interface CreatePatternInput {
  ticket_id: string;
  title?: string;
  fix_summary?: string;
  shared?: boolean;
  diff_stats?: { files_changed?: number; additions?: number; deletions?: number };
}

export interface UpdatePatternInput {
  title?: string;
  fix_summary?: string;
  shared?: boolean;
  keywords?: string[];
}

export interface ListPatternsQuery {
  cursor?: string;
  limit?: number;
  scope?: 'all' | 'own' | 'shared';
  workspace_id?: string;
  category?: string;
  q?: string;
}

export interface PatternMatch {
  score: number;
  reasons: string[];
  pattern: SerializedPattern;
}

/** A pattern as the API answers it (serializePattern). */
export type SerializedPattern = {
  id: string;
  owned: boolean;
  shared: boolean;
  workspace_id: string | null;
  source_ticket_id: string | null;
  title: string;
  category: string;
  problem: {
    error_type: string | null;
    normalized_message: string;
    frames: Array<{ file: string; function: string }>;
    keywords: string[];
    signature: string;
  };
  fix: { summary: string; files_changed: number | null; additions: number | null; deletions: number | null };
  created_at: string;
  updated_at: string;
};

/** A pattern as answered: another organization's shared pattern comes without its workspace and ticket. */
export function serializePattern(p: Pattern, viewerOrgId: string): SerializedPattern {
  const owned = p.org_id === viewerOrgId;
  return {
    id: p.id,
    owned,
    shared: p.shared,
    workspace_id: owned ? p.workspace_id : null,
    source_ticket_id: owned ? p.source_ticket_id : null,
    title: p.title,
    category: p.category,
    problem: {
      error_type: p.error_type,
      normalized_message: p.normalized_message,
      frames: p.frames ?? [],
      keywords: p.keywords ?? [],
      signature: p.signature,
    },
    fix: { summary: p.fix_summary, files_changed: p.files_changed, additions: p.additions, deletions: p.deletions },
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}
