package org.uabench.milo;

import org.eclipse.milo.opcua.stack.core.channel.EncodingLimits;

/**
 * SPEC §3 "Message sizes": servers and clients accept messages of at least 8 MiB. Milo's
 * default EncodingLimits stop at 2 MiB per message (64 chunks of 64 KiB), which a 40 × Image
 * read already exceeds, so both roles raise them to 16 MiB, keeping Milo's chunk size, its
 * recursion depth and its rule of twice as many chunks as the message size needs.
 */
final class MessageSize {

  static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  static final EncodingLimits ENCODING_LIMITS =
      new EncodingLimits(
          EncodingLimits.DEFAULT_MAX_CHUNK_SIZE,
          MAX_MESSAGE_BYTES / EncodingLimits.DEFAULT_MAX_CHUNK_SIZE * 2,
          MAX_MESSAGE_BYTES,
          EncodingLimits.DEFAULT_MAX_RECURSION_DEPTH);

  private MessageSize() {}
}
