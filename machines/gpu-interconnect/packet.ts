/**
 * Sizes of memory packets on the GPU's memory-side links, for byte-bandwidth (flit) links.
 * GPGPU-Sim (`mem_fetch`, `-gpgpu_mem_...`): a read request carries only its control header
 * (`READ_PACKET_SIZE` = 8 bytes), a write request its header plus data, a read response its
 * header plus data (`get_num_flits` = ceil(size / flit size)).
 */
import { GpuKind } from '../gpu/messages.ts';

/** Control header of every memory packet, bytes (GPGPU-Sim `READ_PACKET_SIZE`). */
export const MEM_HEADER_BYTES = 8;

/**
 * Bytes a memory packet occupies on a link.
 * @param kind `mem.readReq`, `mem.writeReq` or `mem.rsp`.
 * @param dataBytes bytes of data moved by the access.
 * @param isWriteAck for a `mem.rsp` that acknowledges a write (no data): header only.
 * @returns header bytes for read requests and write acks, header + data otherwise.
 */
export function memPacketBytes(kind: string, dataBytes: number, isWriteAck = false): number {
  if (kind === GpuKind.readReq || isWriteAck) return MEM_HEADER_BYTES;
  return MEM_HEADER_BYTES + dataBytes;
}
