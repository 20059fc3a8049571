package dev.spillway;

import java.nio.ByteBuffer;

/** What a running task sees: its declared objects' DRAM buffers, each as its privilege allows. */
public interface TaskContext
{
    /**
     * @param data an object the task declared.
     * @return a buffer over the object's bytes in native byte order, position 0 and limit {@code data.size()}:
     *         read-only for {@link Privilege#READ} (writes throw {@link java.nio.ReadOnlyBufferException}),
     *         writable otherwise. For {@link Privilege#WRITE} and {@link Privilege#SCRATCH} the initial contents are
     *         unspecified: a WRITE task must write every byte.
     * @throws PrivilegeViolationException if the task did not declare {@code data}.
     */
    ByteBuffer buffer(Data data);

    /** @return the task's name. */
    String taskName();
}
