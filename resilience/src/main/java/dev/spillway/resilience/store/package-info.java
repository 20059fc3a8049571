/**
 * The file checkpoint store: generations of blocks and self-checksummed manifests in one directory, committed
 * crash-atomically, verified end to end on restore, and collected so no unreferenced file outlives a commit.
 */
package dev.spillway.resilience.store;
