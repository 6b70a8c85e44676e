// The process-level chaos scenarios at CI scale, in the default suite (FLEX_CHAOS_SCALE unset means
// `ci`), sharing one cluster (chaos-cluster.ts); `npm run test:chaos` runs each file at full scale
// on a cluster of its own. Needs the built dist (npm run build). See docs/RELIABILITY.md.
import './postgres-restart.chaos';
import './agent-faults.chaos';
import './service-kills.chaos';
import './rolling-restart.chaos';
