/** Entry point: wires the server session, the status bar and the commands together. */
import * as vscode from "vscode";

import { askQuery, findInQuickPick } from "./find";
import { findSelection } from "./findSelection";
import { IndexState } from "./indexState";
import { ServerSession } from "./session";
import { IndexStatusBar } from "./statusBar";

let session: ServerSession | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("SmartSearch", { log: true });
  const index = new IndexState();
  const statusBar = new IndexStatusBar(index);
  session = new ServerSession(output, index, () => statusBar.render());
  const current = session;
  context.subscriptions.push(
    output,
    statusBar,
    vscode.commands.registerCommand("smartsearch.find", async () => {
      const query = await askQuery();
      if (query !== undefined) {
        await current.withClient((client) => findInQuickPick(client, query, "auto"));
      }
    }),
    vscode.commands.registerCommand("smartsearch.findSelection", () => current.withClient(findSelection)),
    vscode.commands.registerCommand("smartsearch.restart", () => current.restart()),
    vscode.commands.registerCommand("smartsearch.showOutput", () => output.show()),
    vscode.workspace.onDidChangeConfiguration((event) => current.onConfigurationChanged(event)),
    // Trust makes the workspace's smartsearch.server.path count: start again with it.
    vscode.workspace.onDidGrantWorkspaceTrust(() => current.restart()),
  );
  // Not awaited: VS Code holds an extension's commands until activate() returns, so awaiting the server's
  // start-up kept "Activating Extensions..." up and the query box from opening. The commands wait for the
  // start themselves (ServerSession.withClient), after the query is typed.
  void current.start();
}

export async function deactivate(): Promise<void> {
  // Returning the promise lets VS Code wait for the server process to exit.
  await session?.stop();
}
