/**
 * Partial redundancy (seed 004, design part D.2): how many replicas each logical rank gets at a degree r, in exact
 * arithmetic, and which process slots on which hosts run them. Pure logic; the runtime that launches replicas is not
 * built yet.
 */
package dev.spillway.resilience.redundancy;
