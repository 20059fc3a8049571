/** Checkpoints at task-graph cuts: where they are stored, how they commit and recover, and when they are taken. */
package dev.spillway.resilience;
