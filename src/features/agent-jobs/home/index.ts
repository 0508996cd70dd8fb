/** The App Home tab: a person's last jobs, the defaults in force and the agent budget left. */
export { buildHomeView, type HomeAccess, type HomeDefaults } from './blocks.js';
export { publishHome, type HomeDeps } from './publish.js';
