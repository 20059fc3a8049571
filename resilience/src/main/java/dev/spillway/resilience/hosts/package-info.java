/**
 * Ranks or process slots grouped by host, for placements that spread copies across hosts (buddies, replicas).
 */
package dev.spillway.resilience.hosts;
