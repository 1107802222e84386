// `oxmcp/ext/skills`: the TS SDK's `@modelcontextprotocol/server/ext/skills`.
export declare const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
export declare const SKILLS_LIST_METHOD = 'skills/list';
export declare const SKILLS_GET_METHOD = 'skills/get';
export declare const RESOURCES_DIRECTORY_READ_METHOD = 'resources/directory/read';
export declare const DIRECTORY_MIME_TYPE = 'inode/directory';
export declare const SKILL_LIMITS: Readonly<{ files: number; bytes: number }>;

export interface SkillResourceEntry { uri: string; digest: string; size: number; [k: string]: unknown }
export interface SkillFrontmatter { name: string; description: string; [k: string]: unknown }
export type SkillResources = SkillResourceEntry[] | 'dynamic';
export interface Skill { uri: string; frontmatter: SkillFrontmatter; resources: SkillResources; _meta?: Record<string, unknown> }
export interface SkillWarning { path: string; message: string }
export interface SkillFileEntry { name: string; kind: 'file' | 'directory' | 'unsupported' }
export interface SkillFiles {
  list(dir: string): Promise<SkillFileEntry[]>;
  read(path: string): Promise<Uint8Array>;
}
export interface SkillCatalogOptions {
  prefix?: string;
  pageSize?: number;
  limits?: { files?: number; bytes?: number };
  strict?: boolean;
  onWarning?: (warning: SkillWarning) => void;
  cacheHint?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
}
export declare class SkillCatalogError extends Error {
  readonly problems: readonly SkillWarning[];
  constructor(problems: readonly SkillWarning[]);
  static isInstance(value: unknown): value is SkillCatalogError;
}
export declare class SkillsExtension {
  readonly id: 'io.modelcontextprotocol/skills';
  static load(files: SkillFiles, options?: SkillCatalogOptions): Promise<SkillCatalog>;
  attach(mcp: object): void;
}
export declare class SkillCatalog extends SkillsExtension {
  private constructor();
  static load(files: SkillFiles, options?: SkillCatalogOptions): Promise<SkillCatalog>;
  get entries(): readonly Skill[];
  reload(): Promise<never>;
}
export declare function memorySkillFiles(files: Record<string, string | Uint8Array>): SkillFiles;
export declare function skillEntry(skillPath: string, files: Record<string, string | Uint8Array>, options?: { baseUri?: string }): Promise<Skill>;
