/** The status bar item that shows the index state and opens the search when clicked. */
import * as vscode from "vscode";

import { IndexState } from "./indexState";

export class IndexStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("smartsearch.index", vscode.StatusBarAlignment.Left);

  constructor(private readonly state: IndexState) {
    this.item.name = "SmartSearch index";
    this.item.command = "smartsearch.find";
    this.render();
    this.item.show();
  }

  render(): void {
    const { text, tooltip } = this.state.view();
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      this.state.phase === "stopped" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
