// `oxmcp/ext/skills/node`: the TS SDK's `@modelcontextprotocol/server/ext/skills/node`.
import type { SkillCatalog, SkillCatalogOptions, SkillFiles } from './ext-skills.js';
export declare function nodeSkillFiles(root: string): SkillFiles;
export declare function loadSkills(root: string, options?: SkillCatalogOptions): Promise<SkillCatalog>;
