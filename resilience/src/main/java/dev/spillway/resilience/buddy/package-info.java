/**
 * Which rank keeps a copy of which rank's checkpoint: mutual pairs or a ring, placed on different hosts when the
 * host map allows it (issue 15, design part B.2).
 */
package dev.spillway.resilience.buddy;
