// `oxmcp/ext/skills`: the TS SDK's `@modelcontextprotocol/server/ext/skills`.
import cjs from './ext-skills.cjs';
export const {
  DIRECTORY_MIME_TYPE, RESOURCES_DIRECTORY_READ_METHOD, SKILLS_EXTENSION_ID, SKILLS_GET_METHOD, SKILLS_LIST_METHOD,
  SKILL_LIMITS, SkillCatalog, SkillCatalogError, SkillsExtension, memorySkillFiles, skillEntry,
} = cjs;
