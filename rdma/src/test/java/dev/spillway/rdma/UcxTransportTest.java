package dev.spillway.rdma;

/** The contract on UCX ranks in this JVM with peer error handling (TCP over loopback). */
final class UcxTransportTest extends UcxTransportContract
{
    UcxTransportTest()
    {
        super(true);
    }
}
