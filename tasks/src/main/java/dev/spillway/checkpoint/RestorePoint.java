package dev.spillway.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/** The newest fully verified generation found when a runtime opens on an existing checkpoint directory. */
public interface RestorePoint
{
    /** @return the cut of the restored generation; tasks below its frontier are skipped. */
    Cut cut();

    /** @return every block of the generation: tag to length and version. */
    Map<String, Block> blocks();

    /**
     * Reads {@code tag}'s block into {@code dst} from its position, verifying its checksum again (the file may have
     * changed since it was verified). Called from the IO thread.
     *
     * @return the block length.
     */
    int read(String tag, ByteBuffer dst) throws IOException;

    /**
     * @return what recovery did, for people: the generation used, every generation tried and rejected with the
     *         reason, and the time spent reading and verifying.
     */
    String explanation();

    /** @return seconds spent reading blocks while verifying. */
    double readSeconds();

    /** @return seconds spent computing checksums while verifying. */
    double verifySeconds();

    /** @return tasks the previous run had completed when it last recorded progress, or -1 if unknown. */
    long previousRunCompleted();

    /** A block of a restored generation. */
    record Block(int length, long version)
    {
    }
}
