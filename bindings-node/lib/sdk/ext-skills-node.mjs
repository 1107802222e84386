// `oxmcp/ext/skills/node`: the TS SDK's `@modelcontextprotocol/server/ext/skills/node`.
import cjs from './ext-skills-node.cjs';
export const { loadSkills, nodeSkillFiles } = cjs;
