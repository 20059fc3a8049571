/**
 * The catastrophic-failure model of seed 000 (Besta and Hoefler, §5.2, eqs. 7-9): how often failures of hardware
 * elements destroy a checkpoint together with its only copy, in failures per day. Pure arithmetic, no I/O.
 */
package dev.spillway.resilience.model;
