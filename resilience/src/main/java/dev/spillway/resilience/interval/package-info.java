/**
 * When to checkpoint: fixed intervals in tasks or seconds, and the automatic interval that minimises the expected
 * run time under the semi-blocking model of Ni's thesis, from measured checkpoint costs and the MTBF.
 */
package dev.spillway.resilience.interval;
