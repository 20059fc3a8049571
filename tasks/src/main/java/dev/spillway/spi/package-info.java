/**
 * What runtimes built on the engine (the distributed runtime of the {@code ranks} module, and the resilience
 * protocols) may use beyond the public API: task bodies that complete elsewhere, and checked task declarations handed
 * to a submitter of their own. The checkpoint SPI is {@link dev.spillway.checkpoint}. Nothing outside the
 * {@code tasks} module may use {@code dev.spillway.internal}.
 */
package dev.spillway.spi;
