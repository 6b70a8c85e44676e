'use strict';
// Plan proof (bench/proof.bench.js): bind + prove plans of 10, 100 and 1,000 nodes against a
// typical contract (1,000 is past the 500-node plan cap: the proof's cost curve, not a valid plan).
const { proofSection } = require('../proof.bench');

module.exports = {
  name: 'proof',
  title: 'Plan proof for 10/100/1,000 nodes',
  run: async (ctx) => ({
    rows: proofSection([10, 100, 1000], (size) =>
      ctx.quick ? (size >= 1000 ? 10 : 100) : size >= 1000 ? 30 : 300,
    ),
  }),
};
