export {
  type CollectionAbout,
  createDaemonFacade,
  type DaemonFacade,
  type DaemonFacadeParts,
  type Decision,
  type Simulation,
  type SimulationStage,
  simulateIntent,
} from './facade.ts';
export { type IntentInput, intentInput, intentOf } from './intent-input.ts';
export {
  CONFIG_RESOURCE_URI,
  CONTROL_TOOLS,
  createDaemonMcpServer,
  createMcpHttpHandler,
  type DaemonMcpOptions,
  errorText,
  marketJson,
  READ_TOOLS,
} from './server.ts';
