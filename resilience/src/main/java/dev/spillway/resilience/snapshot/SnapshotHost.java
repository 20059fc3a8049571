package dev.spillway.resilience.snapshot;

/** What a {@link SnapshotAgent} asks of the rank that runs it. */
public interface SnapshotHost
{
    /**
     * Puts {@code message} on the FIFO channel to its target, behind everything this rank sent there before.
     *
     * @param message to send.
     */
    void send(ControlMessage message);

    /**
     * Takes this rank's local checkpoint for {@code wave} now: its window, quiesced against incoming writes while it
     * is copied, its private state, and (for {@link SnapshotProtocol#DELAY}) the read requests its NIC holds.
     *
     * @param wave the wave checkpointed.
     */
    void checkpoint(int wave);
}
