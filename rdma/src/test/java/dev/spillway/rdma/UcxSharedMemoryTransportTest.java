package dev.spillway.rdma;

/** The contract on UCX ranks in this JVM without peer error handling: shared memory (sysv, posix, cma) is used. */
final class UcxSharedMemoryTransportTest extends UcxTransportContract
{
    UcxSharedMemoryTransportTest()
    {
        super(false);
    }
}
