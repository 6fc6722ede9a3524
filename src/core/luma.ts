/**
 * Luma of the RGB pixel at byte offset `o` of interleaved 8-bit RGB data (ITU-R BT.601
 * weights, 0-255): the one grey every module uses, so their figures agree.
 */
export const luma = (rgb: Uint8Array, o: number): number => 0.299 * rgb[o]! + 0.587 * rgb[o + 1]! + 0.114 * rgb[o + 2]!;
