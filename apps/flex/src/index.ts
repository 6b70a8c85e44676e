export { startEmbedded, type EmbeddedOptions, type EmbeddedFlex } from './embedded/embedded';
