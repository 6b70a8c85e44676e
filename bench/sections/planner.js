'use strict';
// Rule-based planning (bench/planner.bench.js): the sample contract over registries of 10, 100 and
// 1,000 capabilities, many competing for each facet the plan needs.
const { plannerSection } = require('../planner.bench');

module.exports = {
  name: 'planner',
  title: 'Rule-based planning over 10/100/1,000 capabilities',
  run: async (ctx) => ({
    rows: plannerSection([10, 100, 1000], (size) =>
      ctx.quick ? (size >= 1000 ? 20 : 50) : size >= 1000 ? 100 : 300,
    ),
  }),
};
