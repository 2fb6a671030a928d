// The shape of this app's messages: the AI SDK's UI messages, typed with the backend's tools,
// data parts and metadata. Both chat libraries keep their messages in this shape.
import type { UIMessage } from "ai";

export type Forecast = { temperature: number; unit: string; conditions: string; city: string };
export type Location = { city: string; latitude: number; longitude: number; accuracy: string };

export type AppTools = {
  getWeather: { input: { city: string; unit: "celsius" | "fahrenheit" }; output: Forecast };
  getLocation: { input: Record<string, never>; output: Location };
  askForConfirmation: { input: { message: string }; output: string };
  deleteFile: { input: { path: string }; output: { path: string; deleted: boolean } };
};

export type AppData = {
  weather: { city: string; status: "loading" | "success"; forecast?: Forecast };
  notification: { message: string; level: "info" | "warning" | "error" };
};

export type AppMetadata = { model?: string; totalTokens?: number };

export type AppMessage = UIMessage<AppMetadata, AppData, AppTools>;

export type AppPart = AppMessage["parts"][number];
