package dev.spillway.rdma;

/**
 * A completed receive.
 *
 * @param header the sender's header; {@code header.rank()} is the sender.
 * @param length payload bytes written into the receive buffer from its position.
 */
public record Message(Header header, int length)
{
}
