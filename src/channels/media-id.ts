// An outbound picture or file is either one the platform already holds (a reference: its id is
// sent as is) or bytes to upload first; adapters whose send takes an id go through this one place.
import type { OutboundMedia } from './types.ts';

/** The platform's id of `media`: a reference's own, or the id `upload` gets for its bytes. */
export async function mediaIdOf(
  media: OutboundMedia,
  upload: (data: Blob, fileName: string) => Promise<string>,
): Promise<string> {
  return media.kind === 'reference' ? media.id : upload(media.data, media.fileName);
}
