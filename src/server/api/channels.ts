// GET /api/v1/properties/{id}/channels (CONTRACT §17): what each channel has seen of the property's feed.
import { getRouterParam, type H3 } from "h3";
import { propertyChannels } from "../../resources/index.js";
import { requestFacts } from "../dashboard/http.js";
import { CHANNELS_PATH } from "../routes.js";
import { guarded, type ApiContext } from "./guard.js";

/** Registers the channels route. */
export function registerChannelsRoute(app: H3, ctx: ApiContext & { trustProxy: boolean }): void {
  app.get(CHANNELS_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const input = {
        ownerId,
        propertyId: getRouterParam(event, "id") ?? "",
        feedBase: requestFacts(event, ctx.trustProxy).origin,
        now: ctx.now(),
        staleAfterMs: ctx.channelStaleAfterMs,
      };
      const channels = await propertyChannels(ctx.store, input);
      return channels.ok ? { status: 200, body: channels.value } : channels;
    }),
  );
}
