package dev.spillway.resilience.buddy;

import java.nio.ByteBuffer;

/**
 * Where {@link OutgoingFiles} hands its {@link BuddyWire} messages: the chunks of the files it reads (their fields,
 * then their bytes) and a generation's end. One thread uses it.
 */
interface ChunkOutlet
{
    /** @return a buffer for the next message, room for a chunk and its fields; may wait until one is free again. */
    ByteBuffer free() throws InterruptedException;

    /** Sends {@code message}, from its position to its limit: a buffer {@link #free} returned. */
    void send(ByteBuffer message) throws InterruptedException;

    /** Waits until every message sent is out and its buffer may be used again. */
    void drain() throws InterruptedException;

    /** After a failure: waits until the messages sent ended either way, so their buffers may be used again. */
    void abandon();
}
