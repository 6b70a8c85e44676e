// The store-level chaos scenarios at CI scale, in the default suite: FLEX_CHAOS_SCALE unset means
// `ci`. `npm run test:chaos` runs the same files (*.chaos.ts) at full scale. See docs/RELIABILITY.md.
import './writers.chaos';
import './late-commit.chaos';
import './projection-kill.chaos';
